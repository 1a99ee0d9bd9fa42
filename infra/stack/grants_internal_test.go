package stack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The Decrypt grants require the purpose (StringEquals) unless the deployment sets
// kmsRequirePurpose false, which keeps them open to values sealed without one until they
// are resealed; sealing always names a purpose.
func TestDecryptGrantRequiresThePurposeUnlessTurnedOff(t *testing.T) {
	var opener blueprint.Function
	for _, f := range blueprint.Functions {
		if len(f.Opens()) > 0 {
			opener = f
			break
		}
	}
	if opener.Name == "" {
		t.Fatal("no blueprint function opens secrets")
	}
	for _, tc := range []struct {
		context any
		want    string
	}{
		{nil, "StringEquals"}, {true, "StringEquals"}, {"true", "StringEquals"},
		{false, "StringEqualsIfExists"}, {"false", "StringEqualsIfExists"},
	} {
		ctx := map[string]any{}
		if tc.context != nil {
			ctx[RequirePurposeContext] = tc.context
		}
		app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
		st := awscdk.NewStack(app, jsii.String("S"), nil)
		key := awskms.NewKey(st, jsii.String("Key"), nil)
		sts := secretsKeyStatements(key, opener, requirePurpose(st))
		if len(sts) == 0 {
			t.Fatalf("%s: no statement", opener.Name)
		}
		b, _ := json.Marshal(sts[0].ToStatementJson())
		var got struct {
			Action    string
			Condition map[string]any
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if _, ok := got.Condition[tc.want]; got.Action != "kms:Decrypt" || len(got.Condition) != 1 || !ok || !strings.Contains(string(b), PurposeCondition) {
			t.Errorf("context %v: %s, want Decrypt on condition %s", tc.context, b, tc.want)
		}
	}
	// A value that is not a boolean is refused at synthesis, and the grant stays strict.
	ctx := map[string]any{RequirePurposeContext: "ture"}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
	st := awscdk.NewStack(app, jsii.String("S"), nil)
	if !requirePurpose(st) {
		t.Fatal("a bad value loosened the grant")
	}
	msgs := app.Synth(nil).GetStackArtifact(jsii.String("S")).Messages()
	all, _ := json.Marshal(*msgs) // the message's own fields are deprecated for direct reading
	if len(*msgs) == 0 || !strings.Contains(string(all), RequirePurposeContext) {
		t.Fatalf("no synthesis error for a bad %s", RequirePurposeContext)
	}
}
