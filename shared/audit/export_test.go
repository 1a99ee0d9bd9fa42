package audit

import "github.com/syncassist/syncassist/shared/dynamostore"

// TraceItem is the item PutTraceDoc writes, for the size tests.
func TraceItem(d AIDoc, data []byte) dynamostore.Item {
	return NewAIRecords(nil, "").traceItem(d, data)
}
