package main

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// recurrences prices a recurring sync error: one more occurrence posted for a row that is
// open, on n rows holding one error key each, and on a row that holds
// syncerror.MaxErrorKeys of them (a hot error's), whose every write carries its keys and
// whose next occurrences are counted in their key's slot among the row's last keys, then
// mark their errorId's record. The rows are made first and not counted, and are not
// diagnosed (a diagnosed row is some 600 bytes larger: about a WRU more per write).
func (r *run) recurrences(n, hot int) ([]Path, error) {
	ingest, err := r.deps.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		return nil, err
	}
	post := func(t *timer, errorID, recordID string) error {
		return r.postSyncError(t, ingest, errorID, recordID, map[string]any{"shipcountry": "Deutschland", "shipzip": "10115", "total": 129.5})
	}
	setup := newTimer(r.meter, blueprint.FuncIngest)
	for i := range n {
		if err := post(setup, fmt.Sprintf("REC-%05d", i), fmt.Sprintf("SO-REC-%05d", i)); err != nil {
			return nil, err
		}
	}
	if err := post(setup, "HOT-00000", "SO-HOT"); err != nil {
		return nil, err
	}
	if err := r.fillKeys("SO-HOT"); err != nil {
		return nil, err
	}
	measure := func(name string, count int, errorID, recordID func(i int) string) (Path, error) {
		r.reset()
		pa := Path{Name: name, Unit: "occurrence", N: float64(count)}
		t := newTimer(r.meter, blueprint.FuncIngest)
		for i := range count {
			if err := post(t, errorID(i), recordID(i)); err != nil {
				return pa, err
			}
		}
		pa.Lambdas = []Invocations{t.invocations(float64(count))}
		r.finish(&pa)
		return pa, nil
	}
	open, err := measure("recurrence: one more occurrence of an open row holding one error key", n,
		func(i int) string { return fmt.Sprintf("REC-%05d-2", i) }, func(i int) string { return fmt.Sprintf("SO-REC-%05d", i) })
	if err != nil {
		return nil, err
	}
	full, err := measure(fmt.Sprintf("recurrence: one more occurrence of an open row holding %d error keys", syncerror.MaxErrorKeys), hot,
		func(i int) string { return fmt.Sprintf("HOT-%05d", i+1) }, func(int) string { return "SO-HOT" })
	return []Path{open, full}, err
}

// fillKeys makes the open row of recordID's cost error hold MaxErrorKeys error keys and as
// many occurrences, as a hot error's row does, with a client the meter does not see.
func (r *run) fillKeys(recordID string) error {
	id := syncerror.RowID(syncerror.Record{TenantID: costTenant, RecordType: "salesOrder", RecordID: recordID,
		ErrorCode: "INVALID_FIELD_VALUE", Message: costMessage})
	keys := make([]string, syncerror.MaxErrorKeys-1)
	for i := range keys {
		keys[i] = syncerror.ErrorKey(fmt.Sprintf("HOT-FILL-%05d", i))
	}
	_, err := dynamodb.NewFromConfig(r.rawAWS).UpdateItem(r.ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(r.deps.Config.Table(blueprint.Processed)),
		Key:                 dynamostore.Item{"tenant_id": dynamostore.Str(costTenant), "id": dynamostore.Str(id)},
		ConditionExpression: aws.String("attribute_exists(id)"),
		UpdateExpression:    aws.String("ADD error_keys :keys, occurrences :n"),
		ExpressionAttributeValues: dynamostore.Item{":keys": &types.AttributeValueMemberSS{Value: keys},
			":n": dynamostore.Num(int64(len(keys)))},
	})
	return err
}
