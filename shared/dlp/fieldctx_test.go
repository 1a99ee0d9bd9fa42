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
		// A wrapped secret's value member is the secret, however short or plain.
		{`{"password":{"value":"letmein"}}`, "letmein"},
		{`{"apiKey":[{"id":"k1","value":"sesame"}]}`, "sesame"},
		{`[{"name":"password","value":"letmein"}]`, "letmein"},
		{`[{"name":"Authorization","value":"Bearer opensesame"}]`, "opensesame"},
		// A value member holding objects or arrays of them wraps the secret one level down.
		{`{"password":{"values":[{"value":"letmein"}]}}`, "letmein"},
		{`[{"name":"password","value":{"value":"letmein"}}]`, "letmein"},
		{`{"apiKey":{"value":{"values":["sesame"]}}}`, "sesame"},
		// A password is what a person types, words included.
		{`{"password":{"value":"correct horse battery staple"}}`, "horse battery"},
		{`[{"name":"password","value":"correct horse battery staple"}]`, "horse battery"},
		{`{"custentity_passphrase":[{"value":"correct horse battery staple"}]}`, "horse battery"},
		// Member order is no one's promise: a name after its value names it as well.
		{`[{"value":"letmein","name":"password"}]`, "letmein"},
		{`[{"value":"correct horse battery staple","name":"password"}]`, "horse battery"},
		{`[{"value":"536221234","fieldId":"custentity_ssn"}]`, "536221234"},
		{`{"Value":"hunter2xyz","Key":"db_password"}`, "hunter2xyz"},
		{`[{"value":"Bearer opensesame","type":"header","required":true,"name":"Authorization"}]`, "opensesame"},
		{`[{"values":[{"value":"letmein"}],"name":"password"}]`, "letmein"},
		// A label alone names a value that looks like a secret, and any value of a field
		// whose input member says a secret is typed in.
		{`{"label":"API Key","value":"sk_test_abc123"}`, "abc123"},
		{`{"label":"Password","value":"Password123!"}`, "Password123!"},
		{`{"label":"Password","value":"Password!x"}`, "Password!x"},
		{`{"label":"Password","type":"password","value":"letmein"}`, "letmein"},
		{`[{"value":"correct horse battery staple","label":"Password","type":"password"}]`, "horse battery"},
		{`{"fieldType":"PASSWORD","label":"Password","value":"password"}`, `"password"}`},
		{`{"label":"Password","format":"password","value":"letmein"}`, "letmein"},
		{`{"label":"Password","widget":"password","value":"letmein"}`, "letmein"},
		{`{"label":"Password","htmlType":"password","value":"letmein"}`, "letmein"},
		{`{"password":{"value":"password"}}`, `"password"}}`},
		// A name, or a secret's name wrapping the pair, makes its value the secret whatever
		// it says: these are default credentials, not options.
		{`[{"name":"admin_password","value":"admin"}]`, `"admin"`},
		{`[{"scriptId":"custentity_sftp_password","value":"sftp"}]`, `"sftp"`},
		{`[{"name":"root password","value":"root"}]`, `"root"`},
		{`{"adminPassword":{"label":"Admin password","value":"admin"}}`, `"admin"`},
		{`[{"name":"password","value":"password"}]`, `"value":"password"`},
		{`{"name":"Password","value":"Password"}`, `"value":"Password"`},
		{`{"name":"pwd","value":"Password","label":"Password"}`, `"value":"Password"`},
		{`[{"value":"admin","label":"Admin password","name":"admin_password"}]`, `"admin"`},
		{`{"password":{"label":"Password","value":"password"}}`, `"value":"password"`},
		// Spaces are no tokens of the look-ahead's budget: pretty-printed reads as compact.
		{prettyMeta, "hunter2xyz"},
		{strings.ReplaceAll(strings.ReplaceAll(prettyMeta, "\n", ""), " ", ""), "hunter2xyz"},
		{strings.ReplaceAll(prettyMeta, "  ", "\t\t\t\t"), "hunter2xyz"},
		// A digit word keeps its capital: user2Password still names a password.
		{`[{"name":"user2Password","value":"letmein"}]`, "letmein"},
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

// prettyMeta is a password pair whose name comes after a member of 11 short members, as
// JSON.stringify(x, null, 2) writes it: its spaces must not spend the look-ahead.
const prettyMeta = `[
  {
    "value": "hunter2xyz",
    "meta": {
      "a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6",
      "g": "7", "h": "8", "i": "9", "j": "10", "k": "11"
    },
    "name": "password"
  }
]`

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
		`{"name":"Password","value":1}`,
		`{"apiKey":{"id":"k1","value":"enabled"}}`,
		`{"name":"password","value":true}`,
		`{"name":"Total","value":"1234"}`,
		`{"value":"hunter2xyz","name":"Total"}`,
		`{"fieldId":"custentity_phone_verified","value":"yes"}`,
		`{"passwordPolicy":{"minLength":12,"value":"strong"}}`,
		`{"tokenCount":{"value":123456}}`,
		`{"secretary":{"name":"Jane Roe","value":"assistant"}}`,
		`[{"name":"password"},{"value":"hunter2xyz"}]`,
		// Only value members wrap the secret further down; what sits beside them describes it.
		`{"password":{"values":[{"value":"enabled"}]}}`,
		`{"password":{"values":[{"id":"k1","type":"basic"}]}}`,
		`{"password":{"value":{"text":"managed by IT"}}}`,
		`{"password":{"meta":{"value":"letmein"}}}`,
		// Keys, tokens and secrets are issued as one token: words there describe them.
		`{"apiKey":{"value":"rotated every 90 days"}}`,
		`[{"name":"client_secret","value":"stored in the vault"}]`,
		// Beside a password's value, words are its description or help.
		`{"password":{"description":"four random words","help":"at least 12 characters","value":""}}`,
		`[{"value":"managed by IT","name":"credentials"}]`,
		`[{"value":"enabled","type":"toggle","name":"apiKey"}]`,
		`[{"value":{"id":"4711","refName":"Widget"},"scriptId":"custentity_item"}]`,
		// A label alone is a picklist option's as often as a field's: its value is reported
		// only when it looks like a secret, and not when it is the label's own words.
		`{"label":"Password","value":"Password"}`,
		`[{"value":"password","label":"Password"},{"value":"api_key","label":"API Key"}]`,
		`{"label":"Client Secret","value":"client_secret"}`,
		`{"label":"Reset password","value":"reset"}`,
		`{"password":{"options":[{"label":"Password","value":"PASSWORD"}]}}`,
		`{"label":"Password","value":2}`,
		`{"label":"Username and Password","value":"basic"}`,
		`{"label":"Password","value":"PWD"}`,
		`{"label":"Forgot Password","value":"Password Reset"}`,
		`{"label":"Password","value":"Expired"}`,
		`{"name":"custentity_auth","label":"Password","value":"Expired"}`,
		`{"label":"Password","type":"radio","value":"Expired"}`,
		`{"label":"Password expires","format":"date","value":"2026-12-01"}`,
		`{"label":"Password","widget":"select","value":"Expired"}`,
		// 1Password is a product, one word as "1password" is.
		`[{"value":"1200.00","name":"1Password"}]`,
		`{"1Password":"1200.00"}`,
		// Accepted limit: a plain password in a form labelled only, with no input member,
		// reads as an option does and is given up, so that option lists can be written.
		`{"label":"Password","value":"letmein"}`,
		`{"label":"Password","value":"password"}`,
	} {
		if r := mustScan(t, s, ConnectorWrite, doc); len(r.Findings) > 0 {
			t.Errorf("%s: %+v", doc, r.Findings)
		}
	}
}

// Objects under a secret-like name are often records and settings, not credentials: a
// NetSuite return authorization reference, a card payment's authorization, a Salesforce
// describe of a Password field, a name/value attribute naming credentials, an
// integration's credential settings. A connector write of any of them is an ordinary ERP
// payload: nothing in it may be reported, or the write is blocked.
func TestConnectorWriteLeavesRecordsUnderSecretNamesAlone(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, doc := range []string{
		// NetSuite REST: a record reference to a Return Authorization (RMA) is an object.
		`{"createdFrom":{"id":"4711","refName":"Return Authorization #RMA1001"},"returnAuthorization":{"id":"4711","refName":"RMA1001"}}`,
		// A card payment's authorization (approval code, status, amount), no credential.
		`{"payment":{"authorization":{"code":"A1B2C3","status":"approved","amount":"129.50"}}}`,
		`{"payment":{"authorization":{"code":"A1B2C3D4E5","transactionId":"ch_3Nq8ZbLkdIwHu7ix0TzQ","value":"129.50"}}}`,
		// Salesforce describe: the Password field's metadata; defaultValue and
		// picklistValues describe the field, a picklist option is not its value.
		`{"fields":[{"name":"Portal_Password__c","label":"Password","type":"picklist","picklistValues":[{"label":"Reset required","value":"reset"}]}]}`,
		`{"fields":[{"name":"Login_Method__c","label":"Password","defaultValue":"Password","picklistValues":[{"label":"Password","value":"Password"},{"label":"SSO","value":"SSO"}]}]}`,
		// Business Central-style name/value with a name naming a credential's metadata.
		`{"attributes":[{"name":"credentials","value":"managed by IT"}]}`,
		// An integration's connection settings: which credential, not the credential.
		`{"credentials":{"type":"oauth2","tokenUrl":"https://login.example.com/oauth/token","expiresIn":3600}}`,
		`{"credentials":{"id":"550e8400-e29b-41d4-a716-446655440000","username":"svc-integration","status":"Active","expiresAt":"2026-11-22T10:15:30Z","rotatedOn":"2026-11-01"}}`,
		`{"apiKey":{"name":"Integration key","createdAt":"2026-11-22T10:15:30.123+01:00","scopes":["orders:read","orders:write"]}}`,
	} {
		r := mustScan(t, s, ConnectorWrite, doc)
		if len(r.Findings) > 0 || r.Blocked {
			t.Errorf("%s\n  blocked=%v findings=%+v", doc, r.Blocked, r.Findings)
		}
	}
}

// What is under a secret's name and looks like a secret is still one: wrapped in an
// object, behind further objects, or as the value of a pair that names it, including an
// HTTP header's pair, where "authorization" is the credential.
func TestConnectorWriteBlocksSecretsUnderSecretNames(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, tc := range []struct{ doc, secret string }{
		{`{"password":{"value":"hunter2xyz"}}`, "hunter2xyz"},
		{`{"custentity_api_password":{"value":"hunter2xyz"}}`, "hunter2xyz"},
		{`[{"fieldId":"custentity_ssn","value":"123456789"}]`, "123456789"},
		{`{"name":"password","value":"Xk9#mP2vLq"}`, "Xk9#mP2vLq"},
		{`{"credentials":{"type":"basic","secret":{"current":"P@ssw0rd.1"}}}`, "P@ssw0rd.1"},
		{`{"headers":[{"name":"Authorization","value":"Basic ZWRpOkVkaSMyMDI2IQ=="}]}`, "ZWRpOkVkaSMyMDI2IQ=="},
		{`{"payment":{"authorization":"Bearer s3cr3tT0kenValue"}}`, "s3cr3tT0kenValue"},
	} {
		r := mustScan(t, s, ConnectorWrite, tc.doc)
		if !r.Blocked {
			t.Errorf("connector write of %s not blocked: %+v", tc.doc, r.Findings)
		}
		if out := mustScan(t, s, Record, tc.doc).Output; strings.Contains(string(out), tc.secret) {
			t.Errorf("%s: the value survives in a record: %s", tc.doc, out)
		}
	}
}

// The look-ahead for a name after its value skips containers by tokens, not bytes, so a
// scan's output, whose masked values are placeholders of other lengths, reads the same: a
// container of few tokens is looked past however long its strings, and a rescan of the
// output finds nothing either way.
func TestNameAfterValueIsLookedForByTokens(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	emails := strings.Repeat("jane@example.com ", 40)
	within := `[{"value":[{"value":"letmein"},"` + emails + `"],"name":"password"}]`
	r := mustScan(t, s, AIPrompt, within)
	if strings.Contains(string(r.Output), "letmein") {
		t.Errorf("the value survives: %s", r.Output)
	}
	beyond := `[{"value":[{"value":"letmein"},` + strings.Repeat(`"jane@example.com",`, lookAheadTokens) + `1],"name":"password"}]`
	for _, doc := range []string{within, beyond} {
		for _, dest := range []Destination{AIPrompt, Record} {
			out := mustScan(t, s, dest, doc).Output
			if again := mustScan(t, s, dest, string(out)); len(again.Findings) > 0 {
				t.Errorf("%s: a rescan of %s finds %+v", dest, out, again.Findings)
			}
		}
	}
}

// A pair's name or label is read without its findings, as a key is, since the output
// holds placeholders there: the scan and a rescan of its output must read it alike, and
// the rescan find nothing. An option's value holds no finding of its own.
func TestPairNamesReadAsTheirOutputReads(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, doc := range []string{
		`[{"name":"password jane@example.com","value":"letmein"}]`,
		`[{"value":"letmein","name":"password jane@example.com"}]`,
		`[{"label":"jane@example.com password","value":"jane"}]`,
		`{"ssn":[{"name":"password 536-22-1234","value":"letmein"}]}`,
		`[{"label":"abcdxyco password","value":"abcd x@y.co"}]`,
	} {
		for _, dest := range []Destination{AIPrompt, Record} {
			out := mustScan(t, s, dest, doc).Output
			if strings.Contains(string(out), "letmein") {
				t.Errorf("%s: the value survives: %s", dest, out)
			}
			if again := mustScan(t, s, dest, string(out)); len(again.Findings) > 0 {
				t.Errorf("%s: a rescan of %s finds %+v", dest, out, again.Findings)
			}
		}
	}
}
