package compose_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/apidoc/apicheck"
)

// Every operation with a body is sent JSON null, with the admin's token, and judged by the
// document as FuzzOpenAPI judges (a null body no schema allows is refused 400). The fuzz
// picks that mutation rarely; CI run 89 found the approve taking "null" for no body.
func TestEveryOperationJudgesANullBody(t *testing.T) {
	doc, err := apicheck.Load()
	if err != nil {
		t.Fatal(err)
	}
	ops := doc.Operations()
	fl := newFlow(t)
	rows := []string{fl.readyClaim(t, "ERR-FZ-1", "SO-10042"), fl.readyClaim(t, "ERR-FZ-2", "SO-10042")}
	fixed := fixedParams(rows)
	tried := 0
	for _, op := range ops {
		for seed := uint64(0); seed < 500; seed++ { // an operation with a body meets the mutation within the first few dozen
			g := apicheck.Generate(op, seed, true, fixed)
			if g.Mutation != "body null" {
				continue
			}
			fl.restoreConnector(t)
			x, problems := fl.exchange(doc, op, g, "admin@demo")
			for _, problem := range problems {
				t.Errorf("%s, body null: status %d: %s", op, x.Status, problem)
			}
			tried++
			break
		}
	}
	if tried < 20 {
		t.Fatalf("only %d operations were sent a null body", tried)
	}
}
