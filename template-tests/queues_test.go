package templatetests

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/syncassist/syncassist/shared/blueprint"
)

func TestQueueCountMatchesBlueprint(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::SQS::Queue", len(s.queues))
	})
}

func TestQueueSettings(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, q := range s.queues {
			t.Run(q.Name, func(t *testing.T) {
				var visibility any = assertions.Match_Absent()
				if q.VisibilityTimeout > 0 {
					visibility = q.VisibilityTimeout.Seconds()
				}
				s.has(t, "AWS::SQS::Queue", obj{
					"QueueName":              blueprint.PhysicalName(s.stage, q.Name),
					"VisibilityTimeout":      visibility,
					"MessageRetentionPeriod": q.Retention.Seconds(),
					"SqsManagedSseEnabled":   true,
				})
			})
		}
	})
}

func TestQueueRedrive(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, q := range s.queues {
			t.Run(q.Name, func(t *testing.T) {
				var redrive any = assertions.Match_Absent()
				if q.DeadLetter != nil {
					redrive = assertions.Match_ObjectEquals(&obj{
						"deadLetterTargetArn": getAtt(s.queueID(t, q.DeadLetter.Name), "Arn"),
						"maxReceiveCount":     num(q.MaxReceiveCount),
					})
				}
				s.has(t, "AWS::SQS::Queue", obj{
					"QueueName":     blueprint.PhysicalName(s.stage, q.Name),
					"RedrivePolicy": redrive,
				})
			})
		}
	})
}

// The architecture fixes these two numbers for the diagnosis queue; the blueprint could
// drift from them without any other test noticing.
func TestDiagnosisQueueContract(t *testing.T) {
	s := devStack.get(t)
	s.has(t, "AWS::SQS::Queue", obj{
		"QueueName":     blueprint.PhysicalName(s.stage, blueprint.Diagnosis.Name),
		"RedrivePolicy": obj{"maxReceiveCount": num(5)},
	})
	worker := s.resources(t, "AWS::Lambda::Function", nil)[s.functionID(t, blueprint.FuncDiagnose)]
	timeout := worker["Properties"].(obj)["Timeout"].(float64)
	queue := s.resources(t, "AWS::SQS::Queue", nil)[s.queueID(t, blueprint.Diagnosis.Name)]
	visibility := queue["Properties"].(obj)["VisibilityTimeout"].(float64)
	if visibility < 6*timeout {
		t.Fatalf("diagnosis visibility timeout %vs, want at least 6 x the worker's %vs", visibility, timeout)
	}
}

func TestQueuesRefuseUnencryptedTransport(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, q := range s.queues {
			t.Run(q.Name, func(t *testing.T) {
				id := s.queueID(t, q.Name)
				s.has(t, "AWS::SQS::QueuePolicy", obj{
					"Queues": arr{ref(id)},
					"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(&arr{assertions.Match_ObjectLike(&obj{
						"Effect":    "Deny",
						"Action":    "sqs:*",
						"Condition": obj{"Bool": obj{"aws:SecureTransport": "false"}},
						"Resource":  getAtt(id, "Arn"),
					})})},
				})
			})
		}
	})
}
