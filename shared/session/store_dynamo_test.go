package session_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/session/sessiontest"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		sessiontest.RunStoreContract(t, func(t *testing.T) sessiontest.Backend {
			db, tables := e.Tables(t)
			table := tables(blueprint.TableEmbeddedSessions)
			return sessiontest.Backend{
				Store: session.NewDynamoStore(db, table),
				Dump:  func(t *testing.T) []string { return scanAll(t, db, table) },
			}
		})
	})
}

// scanAll returns every item of table, one line per attribute with its value flattened, so
// the contract can check that no stored key or value holds a service token.
func scanAll(t *testing.T, db *dynamodb.Client, table string) []string {
	t.Helper()
	var lines []string
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			for name, v := range it {
				lines = append(lines, name+"="+flatten(v))
			}
		}
	}
	if len(lines) == 0 {
		t.Fatal("scan found no items; the dump would prove nothing")
	}
	sort.Strings(lines)
	return lines
}

func flatten(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return string(v.Value)
	case *types.AttributeValueMemberL:
		s := "["
		for _, e := range v.Value {
			s += flatten(e) + " "
		}
		return s + "]"
	case *types.AttributeValueMemberM:
		s := "{"
		for k, e := range v.Value {
			s += k + ":" + flatten(e) + " "
		}
		return s + "}"
	case *types.AttributeValueMemberSS:
		return fmt.Sprint(v.Value)
	}
	return fmt.Sprintf("%T", v)
}

// A bootstrap request's claim the SDK sent again after its first was applied (its answer
// lost) is the first claim, not a replay of itself; a real second claim of the id is.
func TestDynamoClaimSentTwiceIsTheFirst(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, tables := e.Tables(t)
		table := tables(blueprint.TableEmbeddedSessions)
		s, twice := session.NewDynamoStore(db, table), session.NewDynamoStore(e.SentTwice(t, "PutItem"), table)
		exp := time.Now().Add(time.Hour)
		if err := twice.ClaimRequest(ctx, "acme", "msg_1", exp); err != nil {
			t.Fatalf("a claim sent twice: %v", err)
		}
		if err := s.ClaimRequest(ctx, "acme", "msg_1", exp); !errors.Is(err, session.ErrExists) {
			t.Fatalf("a second claim of the id: %v, want ErrExists", err)
		}
	})
}
