package report

import "html/template"

// page is the HTML template of the report. The rule rows are written on one
// line each, without indentation, to keep a 237 × 50 rule page compact.
var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="drumql">
<title>{{.Title}}</title>
<style>` + css + `</style>
</head>
<body>
<main id="top">
<header>
<h1>{{.Title}}</h1>
<p class="meta">
{{- if .Generated}}<span>Generated {{.Generated}}</span>{{end}}
{{- if .Dataset}}<span>Dataset <b>{{.Dataset}}</b></span>{{end}}
{{- if .Store}}<span>Store <b>{{.Store}}</b></span>{{end}}</p>
</header>
{{- if .Notes}}
<div class="notes">{{range .Notes}}<p>{{.}}</p>{{end}}</div>
{{- end}}
{{- if .Summary}}
<div class="cards">{{range .Summary}}<div class="card"><div class="k">{{.Name}}</div><div class="v">{{.Value}}</div></div>{{end}}</div>
{{- end}}
{{- if .Config}}
<div class="cfg"><span class="lbl">Configuration</span>{{range .Config}}<span class="kv"><b>{{.Name}}</b> {{.Value}}</span>{{end}}</div>
{{- end}}

<h2 id="loss">Training loss</h2>
{{- if .Chart}}
<figure class="chartbox">{{.Chart}}</figure>
{{- else}}
<p class="empty">No training loss was recorded.</p>
{{- end}}
{{- if .LossStats}}
<p class="sub">{{.LossStats}}</p>
{{- end}}
{{- if .Epochs}}
<details><summary>Loss per epoch ({{len .Epochs}})</summary>
<table class="nt"><thead><tr><th>epoch</th><th>batches</th><th>mean</th><th>min</th><th>max</th><th>last</th>{{if .HasValid}}<th>validation</th>{{end}}</tr></thead><tbody>
{{range .Epochs}}<tr><td>{{.Epoch}}</td><td>{{.Batches}}</td><td>{{.Mean}}</td><td>{{.Min}}</td><td>{{.Max}}</td><td>{{.Last}}</td>{{if $.HasValid}}<td>{{.Valid}}</td>{{end}}</tr>
{{end}}</tbody></table>
</details>
{{- end}}

<h2 id="metrics">Link prediction</h2>
{{- with .Metrics}}
<table class="mt"><caption>{{.Caption}}</caption>
<thead><tr><th rowspan="2"></th><th colspan="3">Expected <small>headline</small></th><th colspan="3">Optimistic</th><th colspan="3">Pessimistic</th></tr>
<tr><th>all</th><th>head</th><th>tail</th><th>all</th><th>head</th><th>tail</th><th>all</th><th>head</th><th>tail</th></tr></thead>
<tbody>
{{range .Rows}}<tr><th>{{.Name}}</th>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p class="sub">Tie policies, for candidates scored equal to the answer: <b>expected</b> averages each metric over all tied positions — the honest headline number; <b>optimistic</b> ranks the answer first among ties, as the original DRUM code does; <b>pessimistic</b> ranks it last. Head and tail are the (?, r, t) and (h, r, ?) queries.</p>
{{- else}}
<p class="empty">Not evaluated.</p>
{{- end}}

<h2 id="rules">Rules</h2>
{{- if .Heads}}
<p class="sub">{{.Rules}} rules for {{len .Heads}} head {{if eq (len .Heads) 1}}relation{{else}}relations{{end}}, each head's best first: the rules <code>mine --top</code> keeps, marked ★, then the rules that predict the most facts most precisely (support × weight), with an example from the graph for the first ones.</p>
<ol class="toc">{{range .Heads}}<li><a href="#{{.ID}}">{{.Head}}</a> <span class="n">{{len .Rules}}</span></li>{{end}}</ol>
{{range $h := .Heads}}<section id="{{$h.ID}}">
<h3><span class="hd">{{$h.Head}}</span> <span class="n">{{len $h.Rules}} rules{{if $h.Top}}; the first {{$h.Top}} (marked ★) are those <code>mine --top {{$h.Top}}</code> keeps{{end}}</span> <a class="up" href="#rules">↑</a></h3>
{{if $h.Rules}}<table class="rt"><thead><tr><th>#</th><th>weight</th><th>score</th>{{if $h.HasSupport}}<th>support</th><th>confidence</th>{{end}}<th>rule</th>{{if $h.HasExample}}<th>example from the graph</th>{{end}}</tr></thead><tbody>
{{range $h.Rules}}<tr><td>{{.N}}{{if .First}} ★{{end}}</td><td class="w"><i><b style="width:{{.Pct}}%"></b></i>{{.Weight}}</td><td>{{.Score}}</td>{{if $h.HasSupport}}<td>{{.Support}}</td><td>{{.Confidence}}</td>{{end}}<td class="rule">{{.Text}}</td>{{if $h.HasExample}}<td>{{.Example}}</td>{{end}}</tr>
{{end}}</tbody></table>{{else}}<p class="empty">No rules mined.</p>{{end}}
</section>
{{end}}
{{- else}}
<p class="empty">No rules.</p>
{{- end}}
</main>
</body>
</html>
`))

// css is the page's only stylesheet, inlined in the head.
const css = `
:root{--fg:#1f2937;--mut:#6b7280;--line:#e5e7eb;--soft:#f8fafc;--acc:#2563eb;--hl:#eff6ff}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1200px;margin:0 auto;padding:28px 32px 56px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:19px;margin:32px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
h3{font-size:15px;margin:22px 0 6px;display:flex;gap:10px;align-items:baseline}
.meta{margin:0;color:var(--mut);font-size:13px}
.meta span+span::before{content:"·";margin:0 8px}
.meta b{color:var(--fg);font-weight:600;word-break:break-all}
.notes{margin:16px 0;padding:8px 14px;border-left:4px solid #f59e0b;background:#fffbeb;border-radius:0 6px 6px 0}
.notes p{margin:4px 0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:10px;margin:18px 0 12px}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 12px;background:var(--soft)}
.card .k{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--mut)}
.card .v{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.cfg{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font-size:13px}
.cfg .lbl{color:var(--mut);margin-right:4px}
.kv{border:1px solid var(--line);border-radius:999px;padding:1px 10px;background:#fff}
.kv b{font-weight:600;color:var(--mut)}
.sub{color:var(--mut);font-size:13px;margin:6px 0}
.empty{color:var(--mut);font-style:italic}
figure{margin:0}
.chartbox{border:1px solid var(--line);border-radius:8px;padding:6px}
.chart{display:block;width:100%;height:auto}
.chart text{font-size:12px;fill:#4b5563}
.chart .at{font-size:13px;fill:#374151}
.chart .ep{font-size:10px;fill:#94a3b8}
.chart .grid{stroke:#eef0f3;stroke-width:1;fill:none}
.chart .zero{stroke:#9ca3af;stroke-width:1.2;fill:none}
.chart .eb{stroke:#cbd5e1;stroke-width:1;stroke-dasharray:4 3;fill:none}
.chart .axis{stroke:#6b7280;stroke-width:1.2;fill:none}
.chart .band{fill:#93c5fd;fill-opacity:.35;stroke:none}
.chart .ln{fill:none;stroke:var(--acc);stroke-width:1.5;stroke-linejoin:round}
.chart .lnp{fill:var(--acc)}
.chart .em{fill:#ea580c;stroke:#fff;stroke-width:1.2}
.chart .vln{fill:none;stroke:#16a34a;stroke-width:1.8;stroke-dasharray:6 3}
.chart .vl{fill:#16a34a;stroke:#fff;stroke-width:1}
details{margin:6px 0}
summary{cursor:pointer;color:var(--acc);font-size:13px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th{font-weight:600;text-align:left}
.nt{margin-top:6px;font-size:13px}
.nt td,.nt th{padding:2px 12px;text-align:right;border-bottom:1px solid var(--line)}
.mt{font-size:14px}
.mt caption{text-align:left;color:var(--mut);font-size:13px;padding-bottom:6px}
.mt th,.mt td{padding:5px 12px;text-align:right;border-bottom:1px solid var(--line)}
.mt thead th{text-align:center}
.mt tbody th{text-align:left}
.mt thead tr:first-child th:nth-child(2),.mt tbody td:nth-child(-n+4),.mt thead tr+tr th:nth-child(-n+3){background:var(--hl)}
.mt thead tr:first-child th:nth-child(n+2),.mt tbody td:nth-child(3n+2),.mt thead tr+tr th:nth-child(3n+1){border-left:2px solid #d1d5db}
.mt tbody td:nth-child(-n+4){font-weight:600}
.mt small{font-weight:400;color:var(--acc)}
.toc{display:grid;grid-template-columns:repeat(auto-fill,minmax(270px,1fr));gap:2px 24px;max-height:19em;overflow-y:auto;padding:8px 12px;margin:10px 0 4px;list-style:none;font-size:13px;border:1px solid var(--line);border-radius:8px;background:var(--soft)}
.toc li{overflow-wrap:anywhere}
.toc a,.up{color:var(--acc);text-decoration:none}
.toc a:hover,.up:hover{text-decoration:underline}
.n{color:var(--mut);font-size:12px;font-weight:400}
.hd{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;overflow-wrap:anywhere}
.up{font-weight:400;font-size:12px;margin-left:auto}
.rt{width:100%;font-size:13px}
.rt th{font-size:12px;color:var(--mut);border-bottom:1px solid #d1d5db;padding:3px 8px}
.rt td{padding:2px 8px;border-bottom:1px solid #f1f5f9;vertical-align:top;white-space:nowrap}
.rt tbody tr:nth-child(even){background:var(--soft)}
.rt td:first-child{color:var(--mut);text-align:right;width:2.5em}
.rt td:last-child{white-space:normal;width:100%;overflow-wrap:anywhere;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.w i{display:inline-block;width:56px;height:8px;margin-right:7px;background:#e5e7eb;border-radius:2px;vertical-align:middle}
.w b{display:block;height:100%;background:var(--acc);border-radius:2px}
@media print{
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{font-size:10pt}
main{max-width:none;padding:0}
.toc,.up,details{display:none}
h2,h3{break-after:avoid}
tr,.chartbox,.cards{break-inside:avoid}
.rt tbody tr:nth-child(even){background:none}
}
`
