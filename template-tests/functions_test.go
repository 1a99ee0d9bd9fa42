package templatetests

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

func TestFunctionCountMatchesBlueprint(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::Lambda::Function", len(s.functions))
	})
}

func TestFunctionsRunGoOnGraviton(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		check(t, func() {
			s.template.AllResourcesProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Architectures": arr{"arm64"},
				"Runtime":       "provided.al2023",
				"Handler":       "bootstrap",
			})
		})
	})
}

func TestFunctionSizing(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, f := range s.functions {
			t.Run(f.Name, func(t *testing.T) {
				s.has(t, "AWS::Lambda::Function", obj{
					"Tags":       assertions.Match_ArrayWith(&arr{obj{"Key": "function", "Value": f.Name}}),
					"Timeout":    f.Timeout.Seconds(),
					"MemorySize": num(f.MemoryMB),
				})
			})
		}
	})
}

// The environment is exactly the stage, the log level, the function's own tables and
// queues, and the AI or JWT settings when it invokes AI or verifies JWTs: a function never
// learns the name of a resource it may not touch.
func TestFunctionEnvironment(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, f := range s.functions {
			t.Run(f.Name, func(t *testing.T) {
				vars := obj{"STAGE": s.stage, "LOG_LEVEL": "info"}
				for _, g := range f.Tables {
					vars[g.Table.EnvVar] = ref(s.tableID(t, g.Table.Name)) // Ref of a table is its name
				}
				for _, q := range f.SendsTo {
					vars[q.EnvVar] = ref(s.queueID(t, q.Name)) // Ref of a queue is its URL
				}
				for k, v := range s.configEnv(f) {
					vars[k] = v
				}
				s.has(t, "AWS::Lambda::Function", obj{
					"Tags":        assertions.Match_ArrayWith(&arr{obj{"Key": "function", "Value": f.Name}}),
					"Environment": obj{"Variables": assertions.Match_ObjectEquals(&vars)},
				})
			})
		}
	})
}

func TestFunctionLogGroups(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		// One for every function (Lambda names each stream after its function), plus the
		// API's access logs.
		s.countIs(t, "AWS::Logs::LogGroup", 2)
		shared := ""
		for _, f := range s.functions {
			t.Run(f.Name, func(t *testing.T) {
				logGroup := assertions.NewCapture(nil)
				s.has(t, "AWS::Lambda::Function", obj{
					"Tags":          assertions.Match_ArrayWith(&arr{obj{"Key": "function", "Value": f.Name}}),
					"LoggingConfig": obj{"LogGroup": obj{"Ref": logGroup}, "LogFormat": "JSON"},
				})
				if _, ok := s.resources(t, "AWS::Logs::LogGroup", obj{"Properties": obj{"RetentionInDays": num(30)}})[*logGroup.AsString()]; !ok {
					t.Fatalf("log group %s of %s does not keep logs for 30 days", *logGroup.AsString(), f.Name)
				}
				if shared == "" {
					shared = *logGroup.AsString()
				} else if *logGroup.AsString() != shared {
					t.Fatalf("%s logs to %s, the others to %s", f.Name, *logGroup.AsString(), shared)
				}
			})
		}
	})
}

func TestQueueEventSources(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::Lambda::EventSourceMapping", len(s.queueFunctions()))
		for _, f := range s.queueFunctions() {
			t.Run(f.Name, func(t *testing.T) {
				var batch any = assertions.Match_AnyValue()
				if f.BatchSize > 0 {
					batch = num(f.BatchSize)
				}
				s.has(t, "AWS::Lambda::EventSourceMapping", obj{
					"FunctionName":   ref(s.functionID(t, f.Name)),
					"EventSourceArn": getAtt(s.queueID(t, f.Queue.Name), "Arn"),
					"BatchSize":      batch,
					// One failed message must not send its whole batch back to the queue.
					"FunctionResponseTypes": arr{"ReportBatchItemFailures"},
					// A backlog drains at a bounded rate instead of scaling to the account's limit.
					"ScalingConfig": obj{"MaximumConcurrency": num(f.MaxConcurrency)},
				})
			})
		}
	})
}
