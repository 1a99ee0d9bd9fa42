package dlp

import (
	"strings"
	"testing"
)

// What a field name says about its value holds however the value is wrapped: in an
// object under the name ({"password": {"value": …}}, NetSuite's {"custentity_…": {"value":
// …}}), or as the name member of a name/value pair, the shape NetSuite, Business Central
// and form payloads give custom fields ([{"fieldId": "custentity_ssn", "value": …}]).
func TestFieldContextThroughObjectsAndNameValuePairs(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, tc := range []struct{ doc, secret string }{
		{`{"password":{"value":"hunter2xyz"}}`, "hunter2xyz"},
		{`{"custentity_api_password":{"value":"hunter2xyz"}}`, "hunter2xyz"},
		{`{"credentials":{"current":{"text":"hunter2xyz"}}}`, "hunter2xyz"},
		{`{"apiKey":[{"value":"hunter2xyz"}]}`, "hunter2xyz"},
		{`{"ssn":{"value":"536221234"}}`, "536221234"},
		{`{"customFields":[{"fieldId":"custentity_ssn","value":"536221234"}]}`, "536221234"},
		{`[{"name":"password","value":"hunter2xyz"}]`, "hunter2xyz"},
		{`{"Key":"db_password","Value":"hunter2xyz"}`, "hunter2xyz"},
		{`{"scriptId":"custentity_api_secret","value":{"text":"hunter2xyz"}}`, "hunter2xyz"},
	} {
		for _, dest := range []Destination{AIPrompt, Record} {
			if r := mustScan(t, s, dest, tc.doc); strings.Contains(string(r.Output), tc.secret) {
				t.Errorf("%s: the value survives: %s", dest, r.Output)
			}
		}
		if r := mustScan(t, s, ConnectorWrite, tc.doc); !r.Blocked {
			t.Errorf("connector write of %s not blocked: %+v", tc.doc, r.Findings)
		}
	}
}

// The context reaches only what the name names: the value of a pair (not its other
// members), and values under the secret's own object; names that merely mention a
// secret (passwordPolicy, tokenCount) name no secret, and an empty or boolean value is
// none.
func TestFieldContextLeavesOtherValuesAlone(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, doc := range []string{
		`{"name":"password","required":true,"maxLength":20,"label":"Password"}`,
		`{"name":"password","value":""}`,
		`{"name":"password","value":true}`,
		`{"name":"Total","value":"1234"}`,
		`{"value":"hunter2xyz","name":"Total"}`,
		`{"fieldId":"custentity_phone_verified","value":"yes"}`,
		`{"passwordPolicy":{"minLength":12,"value":"strong"}}`,
		`{"tokenCount":{"value":123456}}`,
		`{"secretary":{"name":"Jane Roe","value":"assistant"}}`,
		`[{"name":"password"},{"value":"hunter2xyz"}]`,
	} {
		if r := mustScan(t, s, ConnectorWrite, doc); len(r.Findings) > 0 {
			t.Errorf("%s: %+v", doc, r.Findings)
		}
	}
}
