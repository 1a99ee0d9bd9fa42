package dlp

// SensitiveField reports whether a field's name alone marks its value sensitive: a
// secret or credential, a card number, a national id or a phone number. The approval
// policy uses it so that a fix to such a field is never left to operators or automation by
// a wildcard.
func SensitiveField(name string) bool {
	return classifyKey(name)&(ctxSecret|ctxAWS|ctxSSN|ctxCard|ctxPhone) != 0
}
