package ai

import (
	"strings"
)

// RulesModel is the model name of the rule-based diagnoser.
const RulesModel = "rules-v1"

// price is USD per 1,000 tokens.
type price struct{ in, out float64 }

// prices is the list price of the models the service is expected to run on, in USD per
// 1,000 tokens (on-demand, standard tier), as published by AWS and OpenAI in 2025. Update
// it when a price changes or a model is added: a model missing here is still usable, but
// its cost records say "unpriced" (Priced false, cost 0) until it is listed.
//
// Bedrock cross-region inference profiles ("us.", "eu.", "apac.", "global.") are priced
// as their foundation model; OpenAI dated snapshots ("gpt-4o-mini-2024-07-18") as their
// alias. Regional price differences are ignored.
var prices = map[string]price{
	RulesModel: {0, 0},

	// Amazon Bedrock.
	"anthropic.claude-3-haiku-20240307-v1:0":    {0.00025, 0.00125},
	"anthropic.claude-3-5-haiku-20241022-v1:0":  {0.0008, 0.004},
	"anthropic.claude-3-5-sonnet-20240620-v1:0": {0.003, 0.015},
	"anthropic.claude-3-5-sonnet-20241022-v2:0": {0.003, 0.015},
	"anthropic.claude-3-7-sonnet-20250219-v1:0": {0.003, 0.015},
	"anthropic.claude-sonnet-4-20250514-v1:0":   {0.003, 0.015},
	"amazon.nova-micro-v1:0":                    {0.000035, 0.00014},
	"amazon.nova-lite-v1:0":                     {0.00006, 0.00024},
	"amazon.nova-pro-v1:0":                      {0.0008, 0.0032},
	"meta.llama3-1-8b-instruct-v1:0":            {0.00022, 0.00022},
	"meta.llama3-1-70b-instruct-v1:0":           {0.00072, 0.00072},
	"mistral.mistral-large-2402-v1:0":           {0.004, 0.012},

	// OpenAI.
	"gpt-4o":       {0.0025, 0.01},
	"gpt-4o-mini":  {0.00015, 0.0006},
	"gpt-4.1":      {0.002, 0.008},
	"gpt-4.1-mini": {0.0004, 0.0016},
	"gpt-4.1-nano": {0.0001, 0.0004},
	"o4-mini":      {0.0011, 0.0044},
}

var inferenceProfilePrefixes = []string{"us.", "eu.", "apac.", "global."}

// Price returns the list price of model in USD per 1,000 input and output tokens; ok is
// false for a model the table does not know.
func Price(model string) (inputPer1K, outputPer1K float64, ok bool) {
	if p, ok := lookupPrice(model); ok {
		return p.in, p.out, true
	}
	return 0, 0, false
}

func lookupPrice(model string) (price, bool) {
	if p, ok := prices[model]; ok {
		return p, true
	}
	for _, pre := range inferenceProfilePrefixes {
		if base, ok := strings.CutPrefix(model, pre); ok {
			if p, ok := prices[base]; ok {
				return p, true
			}
		}
	}
	// A dated snapshot: the longest alias followed by "-YYYY-MM-DD".
	best := ""
	for alias := range prices {
		rest, ok := strings.CutPrefix(model, alias+"-")
		if ok && isDateSuffix(rest) && len(alias) > len(best) {
			best = alias
		}
	}
	if best != "" {
		return prices[best], true
	}
	return price{}, false
}

func isDateSuffix(s string) bool {
	if len(s) != len("2006-01-02") {
		return false
	}
	for i, c := range s {
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Cost is the list price of u in USD; 0 for a model Price does not know (check Priced).
func Cost(u Usage) float64 {
	p, ok := lookupPrice(u.Model)
	if !ok {
		return 0
	}
	return float64(u.InputTokens)/1000*p.in + float64(u.OutputTokens)/1000*p.out
}

// Priced reports whether Cost knows the price of model.
func Priced(model string) bool {
	_, ok := lookupPrice(model)
	return ok
}
