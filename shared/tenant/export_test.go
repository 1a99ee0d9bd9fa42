package tenant

// SetWriteToken fixes the token each Update of s carries, so a test sends one twice as
// the SDK does when an answer is lost.
func SetWriteToken(s *DynamoStore, f func() string) { s.token = f }
