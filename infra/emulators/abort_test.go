package emulators

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// A client that hangs up before its request body is sent (a Go context cancelled mid-call)
// once killed dynalite with an uncaught "aborted" error, failing every later call of a
// browser run. The emulator now outlives it.
func TestDynaliteOutlivesAnAbortedRequest(t *testing.T) {
	e, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	host := e.DynamoDBEndpoint[len("http://"):]
	for range 3 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-amz-json-1.0\r\n"+
			"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 100\r\n\r\n{\"Li", host)
		time.Sleep(50 * time.Millisecond) // let dynalite start reading the body
		c.Close()
	}
	db := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.DynamoDBEndpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("dynalite after three aborted requests: %v", err)
	}
}
