package compose_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/compose"
)

// BenchmarkLoad is a Lambda's cold-start wiring: configuration, clients, DLP, the AI
// provider and the guard. It makes no network call. Run it without AWS_CA_BUNDLE (as in
// Lambda): with it set, the SDK parses the whole CA bundle on every config load, which
// costs milliseconds and hides the wiring's own cost.
func BenchmarkLoad(b *testing.B) {
	b.Setenv("STAGE", "bench")
	b.Setenv("DIAGNOSIS_QUEUE_URL", "http://127.0.0.1:1/queue")
	for i := 0; i < b.N; i++ {
		if _, err := compose.Load(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
