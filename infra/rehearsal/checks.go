package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/infra/emulators"
)

type (
	obj      = map[string]any
	template struct {
		Resources map[string]struct {
			Type       string
			Properties obj
		}
	}
)

// checked are the resource types the rehearsal compares with the template; every one of
// them must have been created.
var checked = []string{"AWS::DynamoDB::Table", "AWS::SQS::Queue", "AWS::Events::Rule", "AWS::Events::EventBus",
	"AWS::Lambda::Function", "AWS::Lambda::EventSourceMapping"}

type checker struct {
	tmpl     template
	physical map[string]string // logical id -> physical id, as CloudFormation answers it
	created  map[string]bool   // logical ids moto created a resource for
	db       *dynamodb.Client
	sqs      *sqs.Client
	events   *eventbridge.Client
	lambda   *lambda.Client
	iam      *iam.Client
	passed   int
	failed   int
	lines    []string
	gaps     map[string]int
}

func newChecker(ctx context.Context, moto *emulators.Moto, stack string, tmpl template) (*checker, error) {
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(moto.Server),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	c := &checker{tmpl: tmpl, physical: map[string]string{}, created: map[string]bool{},
		db: dynamodb.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg), events: eventbridge.NewFromConfig(cfg),
		lambda: lambda.NewFromConfig(cfg), iam: iam.NewFromConfig(cfg)}
	p := cloudformation.NewListStackResourcesPaginator(cloudformation.NewFromConfig(cfg),
		&cloudformation.ListStackResourcesInput{StackName: aws.String(stack)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list the stack's resources: %w", err)
		}
		for _, r := range page.StackResourceSummaries {
			id := aws.ToString(r.LogicalResourceId)
			c.physical[id] = aws.ToString(r.PhysicalResourceId)
			// moto lists a resource of a type it does not implement with no type.
			c.created[id] = aws.ToString(r.ResourceType) != "" && aws.ToString(r.ResourceType) != "None"
		}
	}
	return c, nil
}

// check records one comparison.
func (c *checker) check(what string, got, want any) {
	if reflect.DeepEqual(got, want) {
		c.passed++
		return
	}
	c.failed++
	c.lines = append(c.lines, fmt.Sprintf("FAIL %s: deployed %v, template %v", what, got, want))
}

func (c *checker) fail(what string, err error) {
	c.failed++
	c.lines = append(c.lines, fmt.Sprintf("FAIL %s: %v", what, err))
}

func (c *checker) checkAll(ctx context.Context) {
	ids := make([]string, 0, len(c.tmpl.Resources))
	for id := range c.tmpl.Resources {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := c.tmpl.Resources[id]
		if !slices.Contains(checked, r.Type) {
			continue
		}
		if !c.created[id] {
			c.fail(r.Type+" "+id, fmt.Errorf("not created"))
			continue
		}
		switch r.Type {
		case "AWS::DynamoDB::Table":
			c.table(ctx, id, r.Properties)
		case "AWS::SQS::Queue":
			c.queue(ctx, id, r.Properties)
		case "AWS::Events::Rule":
			c.rule(ctx, id, r.Properties)
		case "AWS::Events::EventBus":
			c.bus(ctx, id, r.Properties)
		case "AWS::Lambda::Function":
			c.function(ctx, id, r.Properties)
		case "AWS::Lambda::EventSourceMapping":
			c.eventSource(ctx, id, r.Properties)
		}
	}
}

// print writes the failures, the count per resource type checked, and what was not
// created because moto's CloudFormation does not implement its type.
func (c *checker) print(w io.Writer) {
	for _, l := range c.lines {
		fmt.Fprintln(w, l)
	}
	count := map[string]int{}
	skipped := map[string]int{}
	for id, r := range c.tmpl.Resources {
		switch {
		case slices.Contains(checked, r.Type):
			count[r.Type]++
		case !c.created[id]:
			skipped[r.Type]++
		}
	}
	fmt.Fprintln(w, "\nchecked against the template:")
	for _, t := range checked {
		fmt.Fprintf(w, "  %-34s %3d\n", t, count[t])
	}
	fmt.Fprintln(w, "not created by moto's CloudFormation, so not checked:")
	for _, t := range sortedKeys(skipped) {
		fmt.Fprintf(w, "  %-34s %3d\n", t, skipped[t])
	}
	if len(c.gaps) > 0 {
		fmt.Fprintln(w, "properties moto does not deploy from a template, so not checked:")
		for _, g := range sortedKeys(c.gaps) {
			fmt.Fprintf(w, "  %s (%d)\n", g, c.gaps[g])
		}
	}
	fmt.Fprintf(w, "\n%d passed, %d failed\n", c.passed, c.failed)
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// resolve evaluates what the template writes as a value: literals, Ref, Fn::GetAtt of an
// Arn, Fn::Join and the pseudo parameters. An ARN is built from the physical id in the
// form AWS documents for the type, so a match says moto deployed that very resource.
func (c *checker) resolve(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case float64:
		return str(v), true
	case obj:
		if ref, ok := v["Ref"].(string); ok {
			return c.ref(ref)
		}
		if att, ok := v["Fn::GetAtt"].([]any); ok && len(att) == 2 && att[1] == "Arn" {
			return c.arn(att[0].(string))
		}
		if join, ok := v["Fn::Join"].([]any); ok && len(join) == 2 {
			var parts []string
			for _, p := range join[1].([]any) {
				s, ok := c.resolve(p)
				if !ok {
					return "", false
				}
				parts = append(parts, s)
			}
			return strings.Join(parts, join[0].(string)), true
		}
	}
	return "", false
}

func (c *checker) ref(id string) (string, bool) {
	switch id {
	case "AWS::Region":
		return "us-east-1", true
	case "AWS::AccountId":
		return emulators.MotoAccount, true
	case "AWS::Partition":
		return "aws", true
	case "AWS::URLSuffix":
		return "amazonaws.com", true
	}
	p, ok := c.physical[id]
	return p, ok && c.created[id]
}

func (c *checker) arn(id string) (string, bool) {
	p, ok := c.ref(id)
	if !ok {
		return "", false
	}
	const at = "us-east-1:" + emulators.MotoAccount
	switch c.tmpl.Resources[id].Type {
	case "AWS::SQS::Queue":
		return "arn:aws:sqs:" + at + ":" + p[strings.LastIndex(p, "/")+1:], true
	case "AWS::DynamoDB::Table":
		return "arn:aws:dynamodb:" + at + ":table/" + p, true
	case "AWS::Lambda::Function":
		return "arn:aws:lambda:" + at + ":function:" + p, true
	case "AWS::IAM::Role":
		return "arn:aws:iam::" + emulators.MotoAccount + ":role/" + p, true
	case "AWS::KMS::Key":
		return "arn:aws:kms:" + at + ":key/" + p, true
	case "AWS::Events::EventBus":
		return "arn:aws:events:" + at + ":event-bus/" + p, true
	case "AWS::SNS::Topic":
		return p, true
	}
	return "", false
}

// jsonish turns an SDK answer into the template's shape (maps, lists, float64 numbers)
// so the two compare with DeepEqual.
func jsonish(v any) any {
	raw, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(raw, &out)
	return dropNulls(out)
}

// dropNulls removes the null fields the SDK's types marshal, which a template leaves out.
func dropNulls(v any) any {
	switch v := v.(type) {
	case obj:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				v[k] = dropNulls(e)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = dropNulls(e)
		}
	}
	return v
}

// str renders a template scalar as the APIs answer it (1209600, not 1.2096e+06).
func str(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// gap records a property moto does not deploy from a template, so the rehearsal cannot
// compare it; print lists each once.
func (c *checker) gap(what string) {
	if c.gaps == nil {
		c.gaps = map[string]int{}
	}
	c.gaps[what]++
}
