package reports

import "strings"

// QuoteLabel returns v as a label value of the Prometheus text format: in
// double quotes, with backslash, double quote and line feed escaped as
// \\, \" and \n, the format's only escapes (Prometheus, "Exposition
// formats", text format: label_value). Node ids, volume paths and every
// other label value of slowpeer's /metrics go through it.
func QuoteLabel(v string) string {
	return `"` + labelEscaper.Replace(v) + `"`
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
