package pagehost

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The forms a flag's value must take, as a usage error quotes them: the
// flag package's own error says only "parse error".
var valueForms = map[string]string{
	"duration": "a duration such as 30s, 500ms or 2m",
	"int":      "an integer",
	"uint":     "an integer, 0 or more",
	"float":    "a number",
}

// formValue is a flag's value whose Set error names the form the value
// must take; typ is the type -h shows.
type formValue struct {
	flag.Value
	typ string
}

// typed is a flag value that names its type for -h (flag.UnquoteUsage
// knows only the flag package's own).
type typed interface{ Type() string }

func (v formValue) Type() string { return v.typ }

func (v formValue) Set(s string) error {
	if v.Value.Set(s) != nil {
		return errors.New("want " + valueForms[v.typ])
	}
	return nil
}

// nameForms makes every duration, integer and number flag of fs name its
// form when a value does not parse.
func nameForms(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if typ, _ := flag.UnquoteUsage(f); valueForms[typ] != "" {
			f.Value = formValue{Value: f.Value, typ: typ}
		}
	})
}

// printFlags writes fs's flags as flag.PrintDefaults does, with the types
// of the flags nameForms wrapped: a default that is the type's zero is not
// shown.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		if v, ok := f.Value.(typed); ok {
			typ = v.Type()
		}
		line := "  -" + f.Name
		if typ != "" {
			line += " " + typ
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		switch def := f.DefValue; {
		case def == "" || def == "0" || def == "0s" || def == "false":
		case typ == "string":
			line += fmt.Sprintf(" (default %q)", def)
		default:
			line += " (default " + def + ")"
		}
		fmt.Fprintln(w, line)
	})
}

// secondsValue is a delay in whole seconds: a duration such as 30s or 2m,
// or, as the flag took it first, a bare number of seconds.
type secondsValue struct {
	n   *int
	raw string // as given, for the range error
}

const msgSecondsForm = "want whole seconds: a duration such as 30s or 2m, or a number of seconds"

func (v *secondsValue) Set(s string) error {
	v.raw = s
	if n, err := strconv.Atoi(s); err == nil {
		*v.n = n
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d%time.Second != 0 {
		return errors.New(msgSecondsForm)
	}
	*v.n = int(d / time.Second)
	return nil
}

func (v *secondsValue) Type() string { return "duration" }

func (v *secondsValue) String() string {
	switch {
	case v == nil || v.n == nil:
		return ""
	case v.raw != "":
		return v.raw
	}
	return (time.Duration(*v.n) * time.Second).String()
}
