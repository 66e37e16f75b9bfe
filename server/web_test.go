package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The tests of the web page drive Debian's headless Chromium with chromedp
// against a server on a loopback port, as a person would use the page.
// They skip when no chromium binary is on PATH (.ci/run installs it).

// chromiumPath is the browser binary, or "" when there is none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// page is a browser tab on the web page of a test server.
type page struct {
	t   *testing.T
	ctx context.Context
	url string

	mu     sync.Mutex
	errors []string // uncaught exceptions and console errors of the page
}

// openPage starts headless Chromium, opens the page of e's server in it,
// waits until the text of the element loaded[0] has loaded[1:] (by default
// until the rules of testRules are listed) and stops the browser when the
// test ends.
func openPage(t *testing.T, e *testEnv, loaded ...string) *page {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium or chromium-browser on PATH: the browser tests of the web page need one (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // the tests may run as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc() // stops the browser and waits for it
	})
	p := &page{t: t, ctx: ctx, url: e.ts.URL}
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			// the browser logs the API's error answers, which the
			// tests ask for, as "Failed to load resource"
			if m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError && !strings.HasPrefix(m.Text, "Failed to load resource") {
				p.mu.Lock()
				p.errors = append(p.errors, fmt.Sprintf("%s: %s", m.Type, m.Text))
				p.mu.Unlock()
			}
		}
	}()
	p.do(chromedp.Navigate(e.ts.URL + "/"))
	if len(loaded) == 0 {
		loaded = []string{"#rules tbody", "husband(B, A)"} // the rule list of testRules
	}
	p.waitText(loaded[0], loaded[1:]...)
	return p
}

// do runs browser actions, failing the test on an error.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v%s", err, p.consoleErrors())
	}
}

// text is the text of the elements sel matches (CSS), joined by newlines.
func (p *page) text(sel string) string {
	p.t.Helper()
	js := fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(e => e.innerText).join("\n")`, sel)
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("browser: reading %s: %v", sel, err)
	}
	return s
}

// waitFor waits until the text of sel satisfies ok, for up to 20 seconds.
func (p *page) waitFor(sel, what string, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.text(sel)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: waited 20s for it to %s; it reads:\n%s%s", sel, what, s, p.consoleErrors())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitText waits until the text of sel contains each of want.
func (p *page) waitText(sel string, want ...string) string {
	p.t.Helper()
	return p.waitFor(sel, fmt.Sprintf("contain %q", want), func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// typeInto replaces the value of the field sel by typing text.
func (p *page) typeInto(sel, text string) {
	p.t.Helper()
	clear := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = ""; e.dispatchEvent(new Event("input")); return true })()`, sel)
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](clear)); err != nil {
		p.t.Fatalf("browser: clearing %s: %v", sel, err)
	}
	if text != "" {
		p.do(chromedp.SendKeys(chromedp.CSS(sel), text))
	}
}

// consoleErrors lists the page's errors for a failure message.
func (p *page) consoleErrors() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.errors) == 0 {
		return ""
	}
	return "\nthe page's console:\n" + strings.Join(p.errors, "\n")
}

// noErrors fails the test when the page logged an error.
func (p *page) noErrors() {
	p.t.Helper()
	if s := p.consoleErrors(); s != "" {
		p.t.Errorf("errors on the page:%s", s)
	}
}

// badEdit types bad, text with an error on its second line, into the text
// box of id box and clicks button: the element of id errID shows the error
// of the API's answer apiBody to the same text, at its line and column,
// and the caret is there.
func (p *page) badEdit(apiBody []byte, bad, box, button, errID string) {
	t := p.t
	t.Helper()
	want := errorBody(t, apiBody)
	if want.Line != 2 || want.Col == 0 {
		t.Fatalf("the API places the error at line %d col %d, want line 2", want.Line, want.Col)
	}
	p.typeInto("#"+box, bad)
	p.do(chromedp.Click(chromedp.ID(button)))
	p.waitText("#"+errID, fmt.Sprintf("line %d, column %d: %s", want.Line, want.Col, want.Error))
	caret, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.getElementById(%q).selectionStart`, box)))
	if wantCaret := strings.Index(bad, "\n") + 1 + want.Col - 1; err != nil || caret != wantCaret {
		t.Errorf("the caret is at %d (%v), want %d: line %d column %d", caret, err, wantCaret, want.Line, want.Col)
	}
}

// ask types a query into the query box and submits it.
func (p *page) ask(q string) {
	p.t.Helper()
	p.typeInto("#query", q)
	p.do(chromedp.Click(chromedp.CSS(`#query-form button[type=submit]`)))
}

// TestWebPage uses the page as a person would: a query and its answer, a
// proof with its rule, a rule removed (an answer lost), a rule with a
// syntax error (the error at its line and column), a rule added (the
// answer back), a rule edited in place (its fact re-weighted).
func TestWebPage(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	p := openPage(t, e)

	// the page and its assets are served, from the binary
	if !strings.Contains(p.text("h1"), "drumql") {
		t.Fatalf("no title on the page: %q", p.text("body"))
	}

	// the fact of an answer: the query's variables replaced by the answer's
	// names, quoted as the printer quotes them
	for _, c := range []struct{ query, row, want string }{
		{"wife(X, marc_ueda)?", `{"X": "alice_ortiz"}`, "wife(alice_ortiz, marc_ueda)"},
		{`"/people/place"(X, "a, b(c")?`, `{"X": "/m/0 \"x\""}`, `"/people/place"("/m/0 \"x\"", "a, b(c")`},
		{"r(X, Y, X)?", `{"X": "Bob", "Y": "not"}`, `r("Bob", "not", "Bob")`},
	} {
		js := fmt.Sprintf("factOf(%q, %s)", c.query, c.row)
		got, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
		if err != nil || got != c.want {
			t.Errorf("%s = %q (%v), want %q", js, got, err, c.want)
		}
	}

	// a query and its answer
	p.ask("wife(X, marc_ueda)?")
	p.waitText("#answers", "alice_ortiz", "0.8")
	p.waitText("#query-status", "1 answer")

	// a ground query: whether it holds, and its proof
	p.ask("grand(hal, jon)?")
	p.waitText("#answers", "holds", "yes", "0.9")
	p.do(chromedp.Click(chromedp.CSS("#answers tbody tr")))
	p.waitText("#proof", "grand(hal, jon)", "father(X, Y), mother(Y, Z)", "father(hal, ida)", "mother(ida, jon)")

	// an unknown predicate: the did-you-mean
	p.ask("wief(X, marc_ueda)?")
	p.waitText("#query-error", "did you mean wife?")

	// the proof of an answer: its rule, weight and file:line
	p.ask("wife(X, marc_ueda)?")
	p.waitText("#answers", "alice_ortiz")
	p.do(chromedp.Click(chromedp.CSS("#answers tbody tr")))
	proof := p.waitText("#proof", "wife(alice_ortiz, marc_ueda)", "husband(B, A)", "husband(marc_ueda, alice_ortiz)", "base fact")
	if !strings.Contains(proof, "rules.dl:3") {
		t.Errorf("the proof does not give the rule's file:line (rules.dl:3):\n%s", proof)
	}
	// collapse and expand the tree
	open := func() bool {
		b, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.querySelector("#proof details").open`))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	p.do(chromedp.Click(chromedp.ID("proof-collapse")))
	if open() {
		t.Error("collapse all left the proof's root open")
	}
	p.do(chromedp.Click(chromedp.CSS("#proof summary")))
	if !open() {
		t.Error("a click on the root of the proof did not expand it")
	}

	// the rule browser: by head relation, filtered
	p.typeInto("#head", "grand")
	p.do(chromedp.Click(chromedp.CSS(`#rules-form button[type=submit]`)))
	p.waitFor("#rules tbody", "list only the grand rule", func(s string) bool {
		return strings.Contains(s, "grand(X, Z)") && !strings.Contains(s, "wife(")
	})
	p.typeInto("#head", "wife")
	p.do(chromedp.Click(chromedp.CSS(`#rules-form button[type=submit]`)))
	p.waitText("#rules tbody", "husband(B, A)", "aunt(A, C)", "0.6667")
	p.typeInto("#rule-filter", "aunt")
	p.waitFor("#rules tbody", "keep only the aunt rule", func(s string) bool {
		return strings.Contains(s, "aunt(A, C)") && !strings.Contains(s, "husband(B, A)")
	})
	p.typeInto("#rule-filter", "")
	p.waitText("#rules tbody", "husband(B, A)")

	// remove a rule: its answer is lost, from the changes and the answers
	p.do(chromedp.Click(chromedp.Search(`//tr[contains(., "husband(B, A)")]//button[contains(@class, "remove")]`)))
	p.waitText("#changed-facts", "lost\twife(alice_ortiz, marc_ueda)\t0.8\t—")
	p.waitFor("#answers, #query-status", "lose alice_ortiz", func(s string) bool {
		return !strings.Contains(s, "alice_ortiz") && strings.Contains(s, "0 answers")
	})
	p.waitFor("#rules tbody", "no longer list the removed rule", func(s string) bool {
		return !strings.Contains(s, "husband(B, A)") && strings.Contains(s, "aunt(A, C)")
	})

	// a rule with a syntax error: the error at its line and column, as the
	// API gives it
	bad := "0.5 :: wife(A, B) :-\n    husband(B A)."
	p.badEdit(e.mustDo(400, "POST", "/v1/rules", mustJSON(t, RulesRequest{Add: []string{bad}})), bad, "rule-text", "save-rule", "edit-error")

	// a rule added: the answer is back, listed as gained
	p.typeInto("#rule-text", "0.7 :: wife(A, B) :- husband(B, A).")
	p.do(chromedp.Click(chromedp.ID("save-rule")))
	p.waitText("#changed-facts", "gained\twife(alice_ortiz, marc_ueda)\t—\t0.7")
	p.waitText("#answers", "alice_ortiz", "0.7")
	if s := p.text("#edit-error"); s != "" {
		t.Errorf("the error of the bad rule is still shown: %q", s)
	}
	p.waitText("#rules tbody", "husband(B, A)", "edits.dl")

	// edit a rule in place: a new weight, its fact re-weighted
	p.typeInto("#head", "")
	p.do(chromedp.Click(chromedp.CSS(`#rules-form button[type=submit]`)))
	p.waitText("#rules tbody", "grand(X, Z)")
	p.do(chromedp.Click(chromedp.Search(`//tr[contains(., "grand(X, Z)")]//button[contains(@class, "edit")]`)))
	if v, err := chromedp.Run(p.ctx, chromedp.Value(chromedp.ID("rule-text"))); err != nil || !strings.Contains(v, "0.9 :: grand(X, Z)") {
		t.Fatalf("Edit put %q (%v) in the text box, want the grand rule", v, err)
	}
	p.typeInto("#rule-text", "0.5 :: grand(X, Z) :- father(X, Y), mother(Y, Z).")
	p.do(chromedp.Click(chromedp.ID("save-rule")))
	p.waitText("#changed-facts", "re-weighted\tgrand(hal, jon)\t0.9\t0.5")
	p.waitFor("#rules tbody", "list the grand rule with its new weight only", func(s string) bool {
		return strings.Contains(s, "0.5 :: grand(X, Z)") && !strings.Contains(s, "0.9 :: grand(X, Z)")
	})
	p.noErrors()
}

// TestWebPageFacts edits base facts from the page's facts box: a fact
// added (a derived answer appears, listed as gained), a line with an error
// (the error at its line and column, the caret there, nothing applied),
// the fact removed in the other form (the answer lost).
func TestWebPageFacts(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	p := openPage(t, e)
	p.ask("wife(X, Y)?")
	p.waitText("#query-status", "3 answers")

	// add a fact: its derived answer appears
	p.typeInto("#facts-text", "husband(kim, lee)")
	p.do(chromedp.Click(chromedp.ID("apply-facts")))
	p.waitText("#facts-changes", "1 base fact added, 0 removed", "1 gained, 0 lost, 0 re-weighted")
	p.waitText("#facts-changed", "gained\twife(lee, kim)\t—\t0.8")
	p.waitText("#answers", "lee\tkim\t0.8")
	p.waitText("#query-status", "4 answers")
	if v, err := chromedp.Run(p.ctx, chromedp.Value(chromedp.ID("facts-text"))); err != nil || v != "" {
		t.Errorf("the facts box holds %q (%v) after the edit, want it empty", v, err)
	}

	// a malformed line: its error at its line and column, as the API gives
	// it, and nothing applied
	bad := "- kim husband lee\nhusband(a b)"
	p.badEdit(e.mustDo(400, "POST", "/v1/facts", mustJSON(t, FactsRequest{Text: bad})), bad, "facts-text", "apply-facts", "facts-error")
	if _, ok := e.ask("wife(X, Y)?")["lee kim"]; !ok {
		t.Error("the edit with a bad line removed kim husband lee")
	}

	// remove the fact ("s rel o" form): the answer is lost
	p.typeInto("#facts-text", "- kim husband lee")
	p.do(chromedp.Click(chromedp.ID("apply-facts")))
	p.waitText("#facts-changes", "0 base facts added, 1 removed", "0 gained, 1 lost")
	p.waitText("#facts-changed", "lost\twife(lee, kim)\t0.8\t—")
	p.waitFor("#answers, #query-status", "lose lee", func(s string) bool {
		return !strings.Contains(s, "lee") && strings.Contains(s, "3 answers")
	})
	if s := p.text("#facts-error"); s != "" {
		t.Errorf("the error of the bad line is still shown: %q", s)
	}
	p.noErrors()
}

// TestWebPageToken: on a server with a token, the page asks for it at the
// first edit and sends it; the edit goes through.
func TestWebPageToken(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.Token = "s3cret" })
	p := openPage(t, e)
	p.typeInto("#rule-text", "0.6 :: spouse(A, B) :- husband(A, B).")
	p.do(chromedp.Click(chromedp.ID("save-rule")))
	p.do(chromedp.WaitVisible(chromedp.ID("token")))
	p.typeInto("#token", "s3cret")
	p.do(chromedp.Click(chromedp.ID("token-ok")))
	p.waitText("#changed-facts", "gained\tspouse(marc_ueda, alice_ortiz)")
	stored, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`sessionStorage.getItem("drumql-token") + " " + location.href`))
	if err != nil {
		t.Fatal(err)
	}
	if stored != "s3cret "+e.ts.URL+"/" {
		t.Errorf("token kept and address: %q, want the token in sessionStorage and not in the address", stored)
	}
	p.noErrors()
}

// TestWebPageManyRules: a program of more than 500 rules is not listed
// at once; a head relation lists its rules, Show all the first 500.
func TestWebPageManyRules(t *testing.T) {
	var rules strings.Builder
	for i := range 501 {
		fmt.Fprintf(&rules, "0.5 :: r%d(X, Y) :- husband(X, Y).\n", i)
	}
	e := newEnv(t, testGraph, rules.String(), nil)
	p := openPage(t, e, "#rules-status", "501 rules: pick a head relation")
	if s := p.text("#rules tbody"); s != "" {
		t.Errorf("the rules were listed at once: %.200s", s)
	}
	p.typeInto("#head", "r7")
	p.do(chromedp.Click(chromedp.CSS(`#rules-form button[type=submit]`)))
	p.waitText("#rules-status", "1 of 1 rule")
	p.waitText("#rules tbody", "r7(X, Y) :- husband(X, Y).")
	p.typeInto("#head", "")
	p.do(chromedp.Click(chromedp.CSS(`#rules-form button[type=submit]`)))
	p.waitText("#rules-status", "501 of 501 rules (the first 500 shown")
	n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#rules tbody tr").length`))
	if err != nil || n != 500 {
		t.Errorf("%d rows (%v), want 500", n, err)
	}
	p.noErrors()
}

// TestWebScreenshot writes a screenshot of the page on the tests' graph to
// the file named by DRUMQL_SCREENSHOT, to look at the page after a change
// of its layout; it skips otherwise.
func TestWebScreenshot(t *testing.T) {
	out := os.Getenv("DRUMQL_SCREENSHOT")
	if out == "" {
		t.Skip("set DRUMQL_SCREENSHOT=FILE.png to write a screenshot of the page")
	}
	out, err := filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, testGraph, testRules, nil)
	p := openPage(t, e)
	p.ask("wife(X, Y)?")
	p.waitText("#answers", "alice_ortiz", "carol")
	p.do(chromedp.Click(chromedp.Search(`//table[@id="answers"]//tr[contains(., "alice_ortiz")]`)))
	p.waitText("#proof", "husband(B, A)")
	p.typeInto("#rule-text", "0.7 :: spouse(A, B) :- husband(A, B).")
	p.do(chromedp.Click(chromedp.ID("save-rule")))
	p.waitText("#changes", "gained")
	p.typeInto("#facts-text", "husband(kim, lee)")
	p.do(chromedp.Click(chromedp.ID("apply-facts")))
	p.waitText("#facts-changes", "gained")
	p.do(chromedp.Click(chromedp.CSS(`#rules th button[data-sort="weight"]`)))
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWebAssets: the page and its assets are served from the binary (no
// browser needed), with the content security policy; other paths are 404.
func TestWebAssets(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	for _, c := range []struct{ path, ctype, has string }{
		{"/", "text/html", `<script src="/static/app.js"`},
		{"/static/app.js", "javascript", `"/v1/query"`},
		{"/static/style.css", "text/css", "table.data"},
	} {
		resp, err := e.ts.Client().Get(e.ts.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), c.ctype) || !strings.Contains(string(b), c.has) {
			t.Errorf("GET %s: %d %s, want 200 %s with %q", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.ctype, c.has)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", c.path, csp)
		}
	}
	for _, path := range []string{"/static/nothing.js", "/index.htm"} {
		if code, b := e.do("GET", path, ""); code != 404 {
			t.Errorf("GET %s: %d %s, want 404", path, code, b)
		}
	}
}
