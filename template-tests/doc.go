// Package templatetests synthesizes the CDK stack of package stack and asserts, with the
// CDK assertions library, that the CloudFormation template has the shape package blueprint
// declares: every table, queue, function, route, schedule, alarm and grant. It holds only
// tests; run them with `go test ./template-tests/...`.
package templatetests
