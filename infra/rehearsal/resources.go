package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// table compares keys, attribute types, billing mode and every index (keys and
// projection) of one table.
func (c *checker) table(ctx context.Context, id string, p obj) {
	name := c.physical[id]
	out, err := c.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		c.fail("table "+name, err)
		return
	}
	t := jsonish(out.Table).(obj)
	c.check("table "+name+" name", name, p["TableName"])
	c.check("table "+name+" key", t["KeySchema"], p["KeySchema"])
	c.check("table "+name+" attributes", byName(t["AttributeDefinitions"], "AttributeName"), byName(p["AttributeDefinitions"], "AttributeName"))
	if bm, ok := t["BillingModeSummary"].(obj); ok {
		c.check("table "+name+" billing", bm["BillingMode"], p["BillingMode"])
	} else {
		c.fail("table "+name+" billing", fmt.Errorf("no billing mode summary"))
	}
	deployed := map[string]any{}
	for _, g := range asList(t["GlobalSecondaryIndexes"]) {
		g := g.(obj)
		deployed[g["IndexName"].(string)] = obj{"KeySchema": g["KeySchema"], "Projection": g["Projection"]}
	}
	want := map[string]any{}
	for _, g := range asList(p["GlobalSecondaryIndexes"]) {
		g := g.(obj)
		want[g["IndexName"].(string)] = obj{"KeySchema": g["KeySchema"], "Projection": g["Projection"]}
	}
	c.check("table "+name+" indexes", deployed, want)
}

// queue compares the retention, visibility timeout and redrive policy (the DLQ's ARN and
// the receive count) of one queue.
func (c *checker) queue(ctx context.Context, id string, p obj) {
	url := c.physical[id]
	out, err := c.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
	if err != nil {
		c.fail("queue "+url, err)
		return
	}
	name := p["QueueName"].(string)
	c.check("queue "+name+" url", url[len(url)-len(name):], name)
	for attr, prop := range map[string]string{"MessageRetentionPeriod": "MessageRetentionPeriod", "VisibilityTimeout": "VisibilityTimeout"} {
		if v, ok := p[prop]; ok {
			c.check("queue "+name+" "+attr, out.Attributes[attr], str(v))
		}
	}
	if rp, ok := p["RedrivePolicy"].(obj); ok {
		dlq, resolved := c.resolve(rp["deadLetterTargetArn"])
		var got obj
		if err := json.Unmarshal([]byte(out.Attributes["RedrivePolicy"]), &got); err != nil || !resolved {
			c.fail("queue "+name+" redrive", fmt.Errorf("policy %q (%v), target resolved %v", out.Attributes["RedrivePolicy"], err, resolved))
			return
		}
		c.check("queue "+name+" redrive target", got["deadLetterTargetArn"], dlq)
		c.check("queue "+name+" max receives", str(got["maxReceiveCount"]), str(rp["maxReceiveCount"]))
	}
}

// rule compares a schedule's expression and state and that it targets the function the
// template names.
func (c *checker) rule(ctx context.Context, id string, p obj) {
	name := c.physical[id]
	out, err := c.events.DescribeRule(ctx, &eventbridge.DescribeRuleInput{Name: aws.String(name)})
	if err != nil {
		c.fail("rule "+name, err)
		return
	}
	c.check("rule "+name+" schedule", aws.ToString(out.ScheduleExpression), p["ScheduleExpression"])
	c.check("rule "+name+" state", string(out.State), p["State"])
	targets, err := c.events.ListTargetsByRule(ctx, &eventbridge.ListTargetsByRuleInput{Rule: aws.String(name)})
	if err != nil {
		c.fail("rule "+name+" targets", err)
		return
	}
	var got, want []string
	for _, t := range targets.Targets {
		got = append(got, aws.ToString(t.Arn))
	}
	for _, t := range asList(p["Targets"]) {
		arn, _ := c.resolve(t.(obj)["Arn"])
		want = append(want, arn)
	}
	sort.Strings(got)
	sort.Strings(want)
	c.check("rule "+name+" targets", got, want)
}

func (c *checker) bus(ctx context.Context, id string, p obj) {
	out, err := c.events.DescribeEventBus(ctx, &eventbridge.DescribeEventBusInput{Name: aws.String(c.physical[id])})
	if err != nil {
		c.fail("event bus "+c.physical[id], err)
		return
	}
	c.check("event bus name", aws.ToString(out.Name), p["Name"])
}

// function compares runtime, architecture, handler, memory, timeout, every environment
// variable (references resolved to the deployed resources) and the role, which must exist.
func (c *checker) function(ctx context.Context, id string, p obj) {
	name := c.physical[id]
	out, err := c.lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
	if err != nil {
		c.fail("function "+name, err)
		return
	}
	label := "function " + name
	c.check(label+" runtime", string(out.Runtime), p["Runtime"])
	// moto's CloudFormation leaves Architectures out of the function it creates (x86_64).
	c.gap("AWS::Lambda::Function Architectures")
	c.check(label+" handler", aws.ToString(out.Handler), p["Handler"])
	c.check(label+" memory", strconv.Itoa(int(aws.ToInt32(out.MemorySize))), str(p["MemorySize"]))
	if t, ok := p["Timeout"]; ok {
		c.check(label+" timeout", strconv.Itoa(int(aws.ToInt32(out.Timeout))), str(t))
	}
	var env map[string]string
	if out.Environment != nil {
		env = out.Environment.Variables
	}
	want := map[string]string{}
	for k, v := range asObj(asObj(p["Environment"])["Variables"]) {
		s, ok := c.resolve(v)
		if !ok {
			c.fail(label+" env "+k, fmt.Errorf("the template's value %v names nothing deployed", v))
			continue
		}
		want[k] = s
	}
	c.check(label+" environment", env, want)
	role, _ := c.resolve(p["Role"])
	c.check(label+" role", aws.ToString(out.Role), role)
	roleID := asList(asObj(p["Role"])["Fn::GetAtt"])
	if len(roleID) == 2 {
		if _, err := c.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(c.physical[roleID[0].(string)])}); err != nil {
			c.fail(label+" role exists", err)
		} else {
			c.passed++
		}
	}
}

// eventSource compares the diagnosis worker's queue mapping: queue, function, batch size and
// partial batch failures.
func (c *checker) eventSource(ctx context.Context, id string, p obj) {
	fn, _ := c.resolve(p["FunctionName"])
	queue, _ := c.resolve(p["EventSourceArn"])
	out, err := c.lambda.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{FunctionName: aws.String(fn)})
	if err != nil || len(out.EventSourceMappings) != 1 {
		c.fail("event source of "+fn, fmt.Errorf("%d mappings (%v), want 1", len(out.EventSourceMappings), err))
		return
	}
	m := out.EventSourceMappings[0]
	c.check("event source of "+fn+" queue", aws.ToString(m.EventSourceArn), queue)
	c.check("event source of "+fn+" batch size", fmt.Sprint(aws.ToInt32(m.BatchSize)), str(p["BatchSize"]))
	c.check("event source of "+fn+" response types", fmt.Sprint(m.FunctionResponseTypes), fmt.Sprint(p["FunctionResponseTypes"]))
}

func asList(v any) []any { l, _ := v.([]any); return l }

func asObj(v any) obj { o, _ := v.(obj); return o }

// byName turns a list of objects into a map keyed by one field, so order does not matter.
func byName(v any, key string) map[string]any {
	out := map[string]any{}
	for _, e := range asList(v) {
		out[fmt.Sprint(e.(obj)[key])] = e
	}
	return out
}
