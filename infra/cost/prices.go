package main

// PricesDate is when the table below was last checked against the pages it names.
const PricesDate = "2026-11-26"

// Prices are AWS's published us-east-1 on-demand list prices in USD, without free tiers
// (a production account exhausts them) and without volume discounts. Each field names its
// page. Update them together and move PricesDate.
type Prices struct {
	// https://aws.amazon.com/api-gateway/pricing/ — HTTP APIs, first 300 million requests a
	// month, per million (a request is metered in 512 KB increments).
	APIGatewayPerMillion float64
	// https://aws.amazon.com/lambda/pricing/ — requests per million, and duration per
	// GB-second on arm64 (first 6 billion GB-seconds a month), billed per 1 ms.
	LambdaRequestsPerMillion float64
	LambdaGBSecondARM        float64
	// https://aws.amazon.com/dynamodb/pricing/on-demand/ — Standard table class, per million
	// write and read request units (after the November 2024 on-demand reduction).
	DynamoWRUPerMillion float64
	DynamoRRUPerMillion float64
	// https://aws.amazon.com/sqs/pricing/ — standard queues, per million requests (each 64 KB
	// chunk of a request is one request).
	SQSPerMillion float64
	// https://aws.amazon.com/kms/pricing/ — symmetric key requests, per 10,000.
	KMSPer10K float64
	// https://aws.amazon.com/eventbridge/pricing/ — custom events on a bus, per million.
	EventBridgePerMillion float64
	// https://aws.amazon.com/cloudwatch/pricing/ — Logs, Standard class, ingestion per GB.
	LogsIngestPerGB float64
}

// ListPrices is the table as of PricesDate.
var ListPrices = Prices{
	APIGatewayPerMillion:     1.00,
	LambdaRequestsPerMillion: 0.20,
	LambdaGBSecondARM:        0.0000133334,
	DynamoWRUPerMillion:      0.625,
	DynamoRRUPerMillion:      0.125,
	SQSPerMillion:            0.40,
	KMSPer10K:                0.03,
	EventBridgePerMillion:    1.00,
	LogsIngestPerGB:          0.50,
}
