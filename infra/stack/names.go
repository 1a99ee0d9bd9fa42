package stack

import (
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// constructID turns a blueprint name ("sync_error_assist_processed", "token-reaper") into a
// construct id ("SyncErrorAssistProcessed", "TokenReaper"). Ids follow the blueprint name,
// not its position in a list, so reordering the blueprint never replaces a resource.
func constructID(name string) string {
	var b strings.Builder
	upper := true
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// seconds converts a blueprint duration. Fractions are reported by validate; rounding up
// here only keeps the CDK from panicking before that report is seen.
func seconds(d time.Duration) awscdk.Duration {
	return awscdk.Duration_Seconds(jsii.Number(math.Ceil(d.Seconds())))
}
