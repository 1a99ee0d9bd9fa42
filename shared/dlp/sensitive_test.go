package dlp_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
)

func TestSensitiveField(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "apiKey": true, "client_secret": true, "cardNumber": true, "ssn": true, "phoneNumber": true,
		"contactPhone": true, "awsSecretAccessKey": true, "cvv2": true,
		"subsidiary": false, "shipcountry": false, "idempotencyKey": false, "trackingNumber": false, "memo": false,
		"phoneVerified": false, "tokenCount": false,
	} {
		if got := dlp.SensitiveField(name); got != want {
			t.Errorf("SensitiveField(%q) = %v, want %v", name, got, want)
		}
	}
}

// Financial identifiers are sensitive in the spellings ERP, CRM and banking records use;
// names that only share a word with one (a customer's accountNumber, a VAT amount, a tax
// code, a sort order) are not.
func TestSensitiveFieldFinancialIdentifiers(t *testing.T) {
	for _, name := range []string{
		"iban", "IBAN", "payeeIban", "bankAccount.iban", "bankAccountNumber", "bank_account", "BankAccountNo",
		"bank_account_number", "bankacctno", "routingNumber", "routing_no", "abaNumber", "ABARoutingNumber",
		"sortCode", "sort_code", "taxId", "tax_id", "TaxID", "taxIdNum", "taxidnum", "taxNumber",
		"taxRegistrationNumber", "vatNumber", "vatId", "VATRegistrationNo", "vatRegNumber", "vatregnumber",
		"ein", "EIN", "tin", "swift", "swiftCode", "SWIFT_CODE", "bic", "BIC", "vendor.bic",
	} {
		if !dlp.SensitiveField(name) {
			t.Errorf("SensitiveField(%q) = false, want true", name)
		}
	}
	for _, name := range []string{
		"accountNumber", "account_number", "AccountNumber", "customerNumber", "vat", "vatAmount", "vatRate", "tax",
		"taxCode", "taxAmount", "taxable", "sortOrder", "sort", "routing", "routingCode", "bankName", "bankAccountName",
		"bankAccountId", "protein", "tinted", "swiftness", "basic", "einvoice", "country", "shipcountry",
	} {
		if dlp.SensitiveField(name) {
			t.Errorf("SensitiveField(%q) = true, want false", name)
		}
	}
}
