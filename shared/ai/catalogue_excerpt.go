package ai

import "slices"

// CatalogueEntry is one code of a vendor's catalogue as a model reads it: what the
// vendor's reference says the code means and which class that is.
type CatalogueEntry struct {
	Vendor  string     `json:"vendor"`
	Code    string     `json:"code"`
	Class   ErrorClass `json:"class,omitempty"`
	Meaning string     `json:"meaning,omitempty"`
	Source  string     `json:"source,omitempty"`
}

// maxExcerpt bounds the entries a prompt carries: an error names a code or two.
const maxExcerpt = 6

// CatalogueExcerpt is the catalogue a model needs for req: the entries of the error's own
// systems' catalogues (scopeOf) and the runtimes' for the error code and the code-shaped
// words of its message, instead of every vendor's catalogue in every prompt (which would
// be most of the prompt's tokens, and cite vendors the error is not about).
func CatalogueExcerpt(req DiagnosisRequest) []CatalogueEntry {
	codes := append([]string{req.ErrorCode}, codeTokens(req.Message)...)
	cats := append(scopeOf(req).own, runtimeCatalogue)
	var out []CatalogueEntry
	for _, code := range codes {
		for _, c := range cats {
			v, ok := c.lookup(code)
			if !ok {
				continue
			}
			e := CatalogueEntry{Vendor: c.vendor, Code: v.code, Class: v.class, Meaning: v.meaning, Source: v.src.String()}
			if !slices.Contains(out, e) && len(out) < maxExcerpt {
				out = append(out, e)
			}
		}
	}
	return out
}
