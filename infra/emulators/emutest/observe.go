package emutest

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/smithy-go/middleware"
)

// Observe is an SDK API option (for aws.Config.APIOptions or a client's Options.APIOptions)
// that calls seen with each request's input and, once answered, its output (nil on an
// error). It sits in the Initialize step, as make cost's meter does (infra/cost/meter.go),
// so the requests the service sends are unchanged; the tests that count a hot path's
// calls share it.
func Observe(seen func(in, out any)) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("emutestObserve",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				seen(in.Parameters, out.Result)
				return out, md, err
			}), middleware.After)
	}
}

// OpName is the operation an SDK input is for ("PutItem" for a *dynamodb.PutItemInput) and
// its service ("dynamodb").
func OpName(in any) (service, op string) {
	t := strings.TrimPrefix(fmt.Sprintf("%T", in), "*")
	service, op, _ = strings.Cut(t, ".")
	return service, strings.TrimSuffix(op, "Input")
}
