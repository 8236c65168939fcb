package jmx

import (
	"math"
	"strconv"
)

// FormatDouble returns f as Java's Double.toString writes it, which is how
// Jackson writes a Java double or Double (JsonGenerator.writeNumber(double)
// uses NumberOutput.toString, that is Double.toString):
//
//   - NaN, Infinity, -Infinity, 0.0 and -0.0 as such;
//   - for 10^-3 ≤ |f| < 10^7, plain decimal notation with at least one
//     digit after the point: 25.0, 0.001, 9999999.0;
//   - else computerized scientific notation, one digit before the point,
//     at least one after it, and "E" with the exponent, negative with "-"
//     and positive without "+": 1.0E7, 1.23456785E7, 1.0E-4.
//
// The digits are the shortest that read back as f, the closest to f of
// those, as Java 19 and later choose them (JDK-4511638, Raffaello
// Giulietti's Schubfach): when one digit would do, Java takes the closest
// decimal of one or two digits, so Double.MIN_VALUE is 4.9E-324, not
// 5.0E-324. Java 18 and earlier sometimes print more digits than needed
// (2.0E-3 for 0.002 among them); FormatDouble follows the newer, specified
// behaviour.
func FormatDouble(f float64) string {
	return string(AppendDouble(nil, f))
}

// AppendDouble appends FormatDouble(f) to dst.
func AppendDouble(dst []byte, f float64) []byte {
	return appendJava(dst, f, 64)
}

// appendJava writes f as Double.toString (bitSize 64) or Float.toString
// (bitSize 32) does.
func appendJava(dst []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	digits, exp := shortestDigits(f, bitSize)
	if exp >= -3 && exp < 7 {
		return appendPlain(dst, digits, exp)
	}
	dst = append(dst, digits[0], '.')
	if len(digits) > 1 {
		dst = append(dst, digits[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// appendPlain writes digits × 10^exp, read as d.ddd × 10^exp, in decimal
// notation with at least one digit on each side of the point.
func appendPlain(dst, digits []byte, exp int) []byte {
	if exp < 0 {
		dst = append(dst, '0', '.')
		for range -exp - 1 {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		dst = append(dst, digits...)
		for range intLen - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	}
	dst = append(dst, digits[:intLen]...)
	dst = append(dst, '.')
	return append(dst, digits[intLen:]...)
}

// shortestDigits returns the decimal digits Java prints for the positive
// finite f, without trailing zeros, and the exponent of the first: f is
// d[0].d[1:] × 10^exp.
func shortestDigits(f float64, bitSize int) ([]byte, int) {
	digits, exp := sciDigits(strconv.AppendFloat(nil, f, 'e', -1, bitSize))
	if len(digits) == 1 {
		// Java's rule: among the decimals of length 1 or 2 that round to f,
		// the closest. The closest two-digit decimal is f correctly rounded
		// to two digits; it wins when it still reads back as f.
		two := strconv.AppendFloat(nil, f, 'e', 1, bitSize)
		if back, err := strconv.ParseFloat(string(two), bitSize); err == nil && back == f {
			digits, exp = sciDigits(two)
		}
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return digits, exp
}

// sciDigits splits strconv's "d.ddde±XX" into its digits and exponent.
func sciDigits(s []byte) ([]byte, int) {
	var digits []byte
	i := 0
	for ; i < len(s) && s[i] != 'e'; i++ {
		if s[i] != '.' {
			digits = append(digits, s[i])
		}
	}
	exp, err := strconv.Atoi(string(s[i+1:]))
	if err != nil {
		panic("BUG: strconv wrote " + string(s))
	}
	return digits, exp
}
