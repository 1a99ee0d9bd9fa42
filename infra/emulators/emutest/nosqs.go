package emutest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// noSQS is the stand-in MainDynamoDB points AWS_ENDPOINT_URL_SQS at. It counts what it is
// asked and answers each request at once with a client error (400: the SDK does not retry
// it) whose message names the cause, in the JSON and the query protocol's shape alike, so
// the failing test's own error says why.
type noSQS struct {
	*httptest.Server
	asked atomic.Int64
}

const noSQSMessage = "emutest: no SQS emulator: this package's TestMain is emutest.MainDynamoDB; use emutest.Main"

func startNoSQS() *noSQS {
	g := &noSQS{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.asked.Add(1)
		w.Header().Set("x-amzn-query-error", "EmutestNoSQS;Sender")
		if r.Header.Get("X-Amz-Target") != "" {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"__type":"com.amazonaws.sqs#EmutestNoSQS","message":"` + noSQSMessage + `"}`))
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`<ErrorResponse><Error><Type>Sender</Type><Code>EmutestNoSQS</Code><Message>` + noSQSMessage + `</Message></Error></ErrorResponse>`))
	}))
	return g
}
