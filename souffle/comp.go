package souffle

import "strings"

// Components: `.comp` definitions (with type parameters and inheritance)
// and their `.init` instances, expanded into plain declarations and
// clauses before the program is read. An instance i of C gets C's body
// (its bases' bodies first), with C's type parameters replaced by the
// instance's arguments, and every relation C declares (or an instance it
// makes) named i.R; a name C does not declare resolves in the enclosing
// instance, then globally.

// compDef is a `.comp` definition.
type compDef struct {
	name   string
	params []string
	bases  []compRef
	body   []token
	outer  *compScope // where it is defined
}

// compRef is a component with its type arguments (`Graph<N>`).
type compRef struct {
	name string
	args []string
	at   pos
}

// compScope is the scope of one instance (or the program's).
type compScope struct {
	defs   map[string]*compDef
	rename map[string]string
	parent *compScope
}

func (s *compScope) def(name string) *compDef {
	for ; s != nil; s = s.parent {
		if d, ok := s.defs[name]; ok {
			return d
		}
	}
	return nil
}

func (s *compScope) resolve(name string) (string, bool) {
	for ; s != nil; s = s.parent {
		if n, ok := s.rename[name]; ok {
			return n, true
		}
		// an instance's relation: i.R
		if i := strings.IndexByte(name, '.'); i > 0 {
			if n, ok := s.rename[name[:i]]; ok {
				return n + name[i:], true
			}
		}
	}
	return name, false
}

// expandComponents returns ts with its components expanded.
func expandComponents(ts []token) ([]token, error) {
	has := false
	for _, t := range ts {
		if t.kind == tDirective && (t.text == ".comp" || t.text == ".init") {
			has = true
			break
		}
	}
	if !has {
		return ts, nil
	}
	top := &compScope{defs: map[string]*compDef{}, rename: map[string]string{}}
	out, err := top.expand(ts[:len(ts)-1], "")
	if err != nil {
		return nil, err
	}
	return append(out, ts[len(ts)-1]), nil
}

// expand expands the .comp and .init of a body in scope s, the relations
// it declares named prefix+R.
func (s *compScope) expand(ts []token, prefix string) ([]token, error) {
	// first the definitions, declarations and instances of this body
	var rest []token
	for i := 0; i < len(ts); {
		t := ts[i]
		switch {
		case t.kind == tDirective && t.text == ".override":
			i += 2 // applied by instantiate
			continue
		case t.kind == tDirective && t.text == ".comp":
			d, next, err := parseComp(ts, i+1)
			if err != nil {
				return nil, err
			}
			d.outer = s
			s.defs[d.name] = d
			i = next
			continue
		case t.kind == tDirective && t.text == ".decl":
			for j := i + 1; j < len(ts) && ts[j].kind == tIdent; j += 2 {
				s.rename[ts[j].text] = prefix + ts[j].text
				if j+1 >= len(ts) || ts[j+1].text != "," {
					break
				}
			}
		case t.kind == tDirective && t.text == ".init" && i+1 < len(ts):
			s.rename[ts[i+1].text] = prefix + ts[i+1].text
		}
		rest = append(rest, t)
		i++
	}
	var out []token
	for i := 0; i < len(rest); i++ {
		t := rest[i]
		if t.kind == tDirective && t.text == ".init" {
			inst, ref, next, err := parseInit(rest, i+1)
			if err != nil {
				return nil, err
			}
			body, err := s.instantiate(ref, nil, map[string]bool{})
			if err != nil {
				return nil, err
			}
			inner := &compScope{defs: map[string]*compDef{}, rename: map[string]string{}, parent: s}
			exp, err := inner.expand(body, prefix+inst+".")
			if err != nil {
				return nil, err
			}
			out = append(out, exp...)
			i = next - 1
			continue
		}
		if t.kind == tIdent && relationPosition(rest, i) {
			if n, ok := s.resolve(t.text); ok {
				t.text = n
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// relationPosition reports whether the name ts[i] is used as a relation:
// before "(", or named by a directive.
func relationPosition(ts []token, i int) bool {
	if i+1 < len(ts) && ts[i+1].kind == tPunct && ts[i+1].text == "(" {
		return true
	}
	for j := i - 1; j >= 0; j -= 2 {
		if ts[j].kind == tDirective {
			return true
		}
		if ts[j].text != "," || j == 0 || ts[j-1].kind != tIdent {
			return false
		}
	}
	return false
}

// instantiate returns the body of component ref (its bases' first), its
// type parameters replaced by the arguments (subst: the arguments of the
// components being instantiated around it).
func (s *compScope) instantiate(ref compRef, subst map[string]string, seen map[string]bool) ([]token, error) {
	d := s.def(ref.name)
	if d == nil {
		return nil, errAt(ref.at, "unknown component %s", ref.name)
	}
	if seen[d.name] {
		return nil, errAt(ref.at, "component %s inherits from itself", d.name)
	}
	seen[d.name] = true
	defer delete(seen, d.name)
	if len(ref.args) != len(d.params) {
		return nil, errAt(ref.at, "component %s takes %d type parameters, not %d", d.name, len(d.params), len(ref.args))
	}
	m := map[string]string{}
	for i, p := range d.params {
		a := ref.args[i]
		if v, ok := subst[a]; ok {
			a = v
		}
		m[p] = a
	}
	overrides := map[string]bool{}
	for k, t := range d.body {
		if t.kind == tDirective && t.text == ".override" && k+1 < len(d.body) {
			overrides[d.body[k+1].text] = true
		}
	}
	var out []token
	for _, b := range d.bases {
		body, err := d.outer.instantiate(b, m, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, dropClauses(body, overrides)...)
	}
	for k, t := range d.body {
		if v, ok := m[t.text]; ok && t.kind == tIdent && k > 0 && typePosition(d.body, k) {
			t.text = v
		}
		out = append(out, t)
	}
	return out, nil
}

// typePosition reports whether the name body[k] is a type: after ":" in
// a declaration, or inside "<...>".
func typePosition(body []token, k int) bool {
	p := body[k-1]
	return p.kind == tPunct && (p.text == ":" || p.text == "<" || p.text == ",") &&
		(p.text != "," || k >= 2 && insideAngles(body, k))
}

func insideAngles(body []token, k int) bool {
	for j := k - 1; j >= 0; j-- {
		switch body[j].text {
		case "<":
			return true
		case ">", "(", ")", ".", "{", "}":
			return false
		}
	}
	return false
}

// parseComp reads `Name [<P, ...>] [: Base<A>, ...] { body }` from ts[i:].
func parseComp(ts []token, i int) (*compDef, int, error) {
	if i >= len(ts) || ts[i].kind != tIdent {
		return nil, 0, errAt(ts[i-1].at, "expected a component name after .comp")
	}
	d := &compDef{name: ts[i].text}
	i++
	var err error
	if d.params, i, err = typeArgs(ts, i); err != nil {
		return nil, 0, err
	}
	if i < len(ts) && ts[i].text == ":" {
		i++
		for i < len(ts) && ts[i].kind == tIdent {
			ref := compRef{name: ts[i].text, at: ts[i].at}
			if ref.args, i, err = typeArgs(ts, i+1); err != nil {
				return nil, 0, err
			}
			d.bases = append(d.bases, ref)
			if i < len(ts) && ts[i].text == "," {
				i++
			}
		}
	}
	if i >= len(ts) || ts[i].text != "{" {
		return nil, 0, errAt(ts[min(i, len(ts)-1)].at, "expected { after .comp %s", d.name)
	}
	depth := 0
	for j := i; j < len(ts); j++ {
		switch ts[j].text {
		case "{":
			depth++
		case "}":
			if depth--; depth == 0 {
				d.body = ts[i+1 : j]
				return d, j + 1, nil
			}
		}
	}
	return nil, 0, errAt(ts[i].at, "component %s: { without }", d.name)
}

// typeArgs reads an optional `<A, B>` at ts[i].
func typeArgs(ts []token, i int) ([]string, int, error) {
	if i >= len(ts) || ts[i].text != "<" {
		return nil, i, nil
	}
	var args []string
	for i++; i < len(ts) && ts[i].text != ">"; i++ {
		if ts[i].kind == tIdent {
			args = append(args, ts[i].text)
		} else if ts[i].text != "," {
			return nil, 0, errAt(ts[i].at, "expected a type, not %s", describe(ts[i]))
		}
	}
	return args, i + 1, nil
}

// parseInit reads `inst = Comp<A>` from ts[i:].
func parseInit(ts []token, i int) (string, compRef, int, error) {
	if i+2 >= len(ts) || ts[i].kind != tIdent || ts[i+1].text != "=" || ts[i+2].kind != tIdent {
		return "", compRef{}, 0, errAt(ts[i-1].at, "expected .init NAME = COMPONENT")
	}
	ref := compRef{name: ts[i+2].text, at: ts[i+2].at}
	args, next, err := typeArgs(ts, i+3)
	ref.args = args
	return ts[i].text, ref, next, err
}

// dropClauses returns body without the clauses (at its top level, not in
// the components it defines) whose head is a relation of drop: the rules
// of a base component's relations that the component overrides.
func dropClauses(body []token, drop map[string]bool) []token {
	if len(drop) == 0 {
		return body
	}
	var out []token
	for i := 0; i < len(body); {
		end := statementEnd(body, i)
		if body[i].kind == tIdent && headsIn(body[i:end], drop) {
			i = end
			continue
		}
		out = append(out, body[i:end]...)
		i = end
	}
	return out
}

// headsIn reports whether a clause has a head over a relation of drop.
func headsIn(clause []token, drop map[string]bool) bool {
	depth := 0
	for k, t := range clause {
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case t.text == ":-" || t.text == ".":
			if depth == 0 {
				return false
			}
		case depth == 0 && t.kind == tIdent && drop[t.text] && (k == 0 || clause[k-1].text == ","):
			return true
		}
	}
	return false
}

// statementEnd returns the end of the statement (a clause or a directive)
// that starts at body[i].
func statementEnd(body []token, i int) int {
	closeAt := func(j int, open, close string) int {
		depth := 0
		for ; j < len(body); j++ {
			switch body[j].text {
			case open:
				depth++
			case close:
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(body)
	}
	t := body[i]
	if t.kind != tDirective {
		depth := 0
		for j := i; j < len(body); j++ {
			switch body[j].text {
			case "(", "{", "[":
				depth++
			case ")", "}", "]":
				depth--
			case ".":
				if depth == 0 && body[j].kind == tPunct {
					return j + 1
				}
			}
		}
		return len(body)
	}
	j := i + 1
	switch t.text {
	case ".decl":
		for j < len(body) && body[j].text != "(" {
			j++
		}
		j = closeAt(j, "(", ")")
		for j < len(body) && body[j].kind == tIdent && qualifiers[body[j].text] {
			j++
		}
		return j
	case ".comp":
		for j < len(body) && body[j].text != "{" {
			j++
		}
		return closeAt(j, "{", "}")
	case ".pragma":
		for j < len(body) && body[j].kind == tString {
			j++
		}
		return j
	case ".init":
		j += 3 // name = Comp
		if j < len(body) && body[j].text == "<" {
			j = closeAt(j, "<", ">")
		}
		return min(j, len(body))
	case ".type":
		j += 2 // name and <: or =
		if j < len(body) && body[j].text == "[" {
			return closeAt(j, "[", "]")
		}
		for j < len(body) && body[j].kind == tIdent {
			if j++; j < len(body) && body[j].text == "|" {
				j++
			} else {
				break
			}
		}
		return min(j, len(body))
	}
	// .input, .output, .printsize, .override: names, then (params)
	for j < len(body) && body[j].kind == tIdent {
		if j++; j < len(body) && body[j].text == "," {
			j++
		} else {
			break
		}
	}
	if j < len(body) && body[j].text == "(" {
		j = closeAt(j, "(", ")")
	}
	return j
}
