package souffle

// Directives: .decl, .type, .input, .output, .printsize, .pragma.

// primitive are Soufflé's primitive types.
var primitive = map[string]bool{"symbol": true, "number": true, "unsigned": true, "float": true}

func (r *reader) directive() error {
	d := r.next()
	switch d.text {
	case ".decl":
		return r.decl()
	case ".type":
		return r.typeDecl()
	case ".input", ".output", ".printsize", ".limitsize":
		return r.io(d)
	case ".pragma":
		if t := r.peek(); t.kind == tString && unquote(t.text) == "magic-transform" {
			r.p.Magic, r.p.magicAt = true, d.at
		}
		for r.peek().kind == tString {
			r.next()
		}
		return nil
	case ".plan":
		return r.plan()
	case ".comp", ".init", ".override":
		return unsupported(d.at, "components ("+d.text+")")
	case ".functor":
		return unsupported(d.at, "user-defined functors (.functor)")
	case ".lattice":
		return unsupported(d.at, "lattices (.lattice)")
	}
	return unsupported(d.at, d.text)
}

// plan reads a query plan, `.plan 0:(1,2), 1:(2,1)` (the order of a
// clause's atoms in each version of its evaluation), which changes no
// result: drumql plans its joins itself, and the plan is ignored.
func (r *reader) plan() error {
	for {
		n, colon, open := r.next(), r.next(), r.next()
		if n.kind != tNumber || colon.text != ":" || open.text != "(" {
			return errAt(n.at, "expected a plan such as 0:(1,2) after .plan, not %s", describe(n))
		}
		for {
			t := r.next()
			if t.text == ")" {
				break
			}
			if t.kind != tNumber && t.text != "," {
				return errAt(t.at, "expected atom numbers in a plan, not %s", describe(t))
			}
		}
		if r.peek().text != "," {
			return nil
		}
		r.next()
	}
}

func (r *reader) ident(what string) (token, error) {
	t := r.next()
	if t.kind != tIdent {
		return t, errAt(t.at, "expected %s, not %s", what, describe(t))
	}
	return t, nil
}

// qualified reads a name, with the dots of a component's qualified name.
func (r *reader) qualified(what string) (token, error) {
	t, err := r.ident(what)
	if err != nil {
		return t, err
	}
	for r.isPunct(".") && r.ts[r.i+1].kind == tIdent && r.ts[r.i+1].at.line == t.at.line {
		return t, unsupported(t.at, "components (qualified name "+t.text+"."+r.ts[r.i+1].text+")")
	}
	return t, nil
}

func (r *reader) decl() error {
	for {
		name, err := r.ident("a relation name")
		if err != nil {
			return err
		}
		names := []token{name}
		for r.isPunct(",") { // .decl A, B(x: number): the same attributes
			r.next()
			n, err := r.ident("a relation name")
			if err != nil {
				return err
			}
			names = append(names, n)
		}
		if _, err := r.expect("("); err != nil {
			return err
		}
		d := &Decl{Name: name.text, At: name.at}
		for !r.isPunct(")") {
			c, err := r.ident("an attribute name")
			if err != nil {
				return err
			}
			if _, err := r.expect(":"); err != nil {
				return err
			}
			ty, err := r.ident("a type")
			if err != nil {
				return err
			}
			d.Cols = append(d.Cols, Col{Name: c.text, Type: ty.text})
			if !r.isPunct(",") {
				break
			}
			r.next()
		}
		if _, err := r.expect(")"); err != nil {
			return err
		}
		var decls []*Decl
		for _, n := range names {
			if old, ok := r.p.Decls[n.text]; ok {
				return errAt(n.at, "relation %s declared twice (first at %s)", n.text, old.At)
			}
			dn := &Decl{Name: n.text, At: n.at, Cols: d.Cols}
			r.p.Decls[n.text] = dn
			r.p.Order = append(r.p.Order, n.text)
			decls = append(decls, dn)
		}
		// qualifiers
		for {
			t := r.peek()
			if t.kind == tPunct && t.text == "," {
				r.next()
				break // another relation of the same declaration
			}
			if t.kind != tIdent || t.at.line != name.at.line && !qualifiers[t.text] {
				return nil
			}
			switch t.text {
			case "eqrel":
				for _, d := range decls {
					d.Eqrel = true
				}
			case "choice":
				if err := r.choiceDomain(decls); err != nil {
					return err
				}
				continue
			case "input", "output", "printsize":
				for _, d := range decls {
					r.p.addIO(t.text, IO{Rel: d.Name, At: t.at})
				}
			default:
				if !qualifiers[t.text] {
					return nil
				}
			}
			r.next()
		}
	}
}

// qualifiers are the words that may follow a declaration.
var qualifiers = map[string]bool{
	"brie": true, "btree": true, "btree_delete": true, "eqrel": true, "inline": true, "magic": true,
	"no_magic": true, "no_inline": true, "overridable": true, "input": true, "output": true,
	"printsize": true, "choice": true,
}

func (p *Program) addIO(kind string, io IO) {
	if io.Params == nil {
		io.Params = map[string]string{}
	}
	switch kind {
	case "input", ".input":
		p.Inputs = append(p.Inputs, io)
	case "output", ".output":
		p.Outputs = append(p.Outputs, io)
	case ".limitsize":
		p.Limits = append(p.Limits, io)
	default:
		p.PrintSizes = append(p.PrintSizes, io)
	}
}

func (r *reader) typeDecl() error {
	name, err := r.ident("a type name")
	if err != nil {
		return err
	}
	t := r.next()
	switch {
	case t.kind == tPunct && t.text == "<:":
		base, err := r.ident("a type")
		if err != nil {
			return err
		}
		r.p.Types[name.text] = base.text
		return nil
	case t.kind == tPunct && t.text == "=":
	default:
		return errAt(t.at, "expected <: or = after .type %s, not %s", name.text, describe(t))
	}
	first := r.peek()
	if first.kind == tPunct && first.text == "[" {
		return r.recordType(name)
	}
	if first.kind == tPunct && first.text == "$" {
		return unsupported(first.at, "algebraic data types ($C(x) in a .type)")
	}
	if first.kind == tIdent && r.ts[r.i+1].kind == tPunct && r.ts[r.i+1].text == "{" {
		return r.adtType(name)
	}
	// a union: T = A | B | ...
	var kinds []string
	for {
		u, err := r.ident("a type")
		if err != nil {
			return err
		}
		if r.isPunct("(") {
			return unsupported(u.at, "algebraic data types")
		}
		kinds = append(kinds, u.text)
		if !r.isPunct("|") {
			break
		}
		r.next()
	}
	r.p.Types[name.text] = kinds[0]
	return nil
}

// kind resolves a type to its primitive type, or "record".
func (p *Program) kind(ty string) string {
	for range 64 {
		if primitive[ty] {
			return ty
		}
		if _, ok := p.Records[ty]; ok {
			return "record"
		}
		base, ok := p.Types[ty]
		if !ok {
			break
		}
		ty = base
	}
	return "symbol"
}

func (r *reader) io(d token) error {
	var ios []IO
	for {
		name, err := r.qualified("a relation name")
		if err != nil {
			return err
		}
		ios = append(ios, IO{Rel: name.text, At: d.at, Params: map[string]string{}})
		if !r.isPunct(",") {
			break
		}
		r.next()
	}
	if r.isPunct("(") {
		r.next()
		for !r.isPunct(")") {
			k, err := r.ident("a parameter name")
			if err != nil {
				return err
			}
			if _, err := r.expect("="); err != nil {
				return err
			}
			v := r.next()
			val := v.text
			if v.kind == tString {
				val = unquote(v.text)
			}
			for i := range ios {
				ios[i].Params[k.text] = val
			}
			if !r.isPunct(",") {
				break
			}
			r.next()
		}
		if _, err := r.expect(")"); err != nil {
			return err
		}
	}
	for _, io := range ios {
		r.p.addIO(d.text, io)
	}
	return nil
}

// unquote decodes a Soufflé string token.
func unquote(s string) string {
	s = s[1 : len(s)-1]
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			default:
				b = append(b, s[i])
			}
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// choiceDomain reads `choice-domain K, ...` after a declaration (at
// "choice"): each key an attribute or a parenthesised list of them.
func (r *reader) choiceDomain(decls []*Decl) error {
	at := r.next()
	if _, err := r.expect("-"); err != nil {
		return err
	}
	if t := r.next(); t.kind != tIdent || t.text != "domain" {
		return errAt(at.at, "expected choice-domain, not choice-%s", t.text)
	}
	d := decls[0]
	col := func() (int, error) {
		t, err := r.ident("an attribute name")
		if err != nil {
			return 0, err
		}
		for i, c := range d.Cols {
			if c.Name == t.text {
				return i, nil
			}
		}
		return 0, errAt(t.at, "choice-domain: %s is no attribute of %s", t.text, d.Name)
	}
	for {
		var key []int
		if r.isPunct("(") {
			r.next()
			for {
				c, err := col()
				if err != nil {
					return err
				}
				key = append(key, c)
				if !r.isPunct(",") {
					break
				}
				r.next()
			}
			if _, err := r.expect(")"); err != nil {
				return err
			}
		} else {
			c, err := col()
			if err != nil {
				return err
			}
			key = []int{c}
		}
		for _, d := range decls {
			d.Choice = append(d.Choice, key)
		}
		// another key: a comma, then an attribute or a parenthesis
		if !r.isPunct(",") || !(r.ts[r.i+1].kind == tIdent && d.hasCol(r.ts[r.i+1].text) || r.ts[r.i+1].text == "(") {
			return nil
		}
		r.next()
	}
}

// hasCol reports whether d has an attribute of that name.
func (d *Decl) hasCol(name string) bool {
	for _, c := range d.Cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// recordType reads the fields of a record type (at its "["):
// .type T = [a: A, b: B].
func (r *reader) recordType(name token) error {
	r.next()
	cols, err := r.fields("]")
	if err != nil {
		return err
	}
	r.p.Records[name.text] = cols
	return nil
}

// fields reads the fields `a: A, b: B` of a record type or a constructor,
// and the punctuation end that closes them.
func (r *reader) fields(end string) ([]Col, error) {
	var cols []Col
	for !r.isPunct(end) {
		f, err := r.ident("a field name")
		if err != nil {
			return nil, err
		}
		if _, err := r.expect(":"); err != nil {
			return nil, err
		}
		ty, err := r.ident("a type")
		if err != nil {
			return nil, err
		}
		cols = append(cols, Col{Name: f.text, Type: ty.text})
		if !r.isPunct(",") {
			break
		}
		r.next()
	}
	_, err := r.expect(end)
	return cols, err
}

// adtType reads the branches of an algebraic data type (at its first
// constructor): .type T = C {a: A, b: B} | D {}. Its values are encoded
// as records whose prefix names the constructor ($C[...], $D).
func (r *reader) adtType(name token) error {
	r.p.Records[name.text] = nil
	for {
		c, err := r.ident("a constructor")
		if err != nil {
			return err
		}
		if _, err := r.expect("{"); err != nil {
			return err
		}
		cols, err := r.fields("}")
		if err != nil {
			return err
		}
		r.p.ctors["$"+c.text] = cols
		if !r.isPunct("|") {
			return nil
		}
		r.next()
	}
}
