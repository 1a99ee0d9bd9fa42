package dlp

// SensitiveField reports whether a field's name alone marks its value sensitive: a
// secret or credential, a card number, a national id, a phone number, or a financial
// identifier (IBAN, bank account, routing or sort code, SWIFT/BIC, tax or VAT id; see
// financialNames: a bare accountNumber is a customer number, not one). The approval
// policy uses it so that a fix to such a field is never left to operators or automation by
// a wildcard. A path is read as its words: "bankAccount.iban" is sensitive.
func SensitiveField(name string) bool {
	return classifyKey(name)&(ctxSecret|ctxAWS|ctxSSN|ctxCard|ctxPhone) != 0 || financialField(name)
}
