package server

import (
	"embed"
	"io/fs"
	"net/http"
)

// webFiles is the page served at / and its assets under /static/: plain
// HTML, CSS and JavaScript, no external resources.
//
//go:embed web
var webFiles embed.FS

// webRoot is webFiles without its top directory.
var webRoot = func() fs.FS {
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err)
	}
	return sub
}()

// pageSecurity is the Content-Security-Policy of the page: everything from
// this server, nothing inline, no other origin.
const pageSecurity = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// page serves the web page.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", pageSecurity)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, webRoot, "index.html")
}

// static serves the page's assets; the file server answers 404 for
// anything else.
func (s *Server) static() http.HandlerFunc {
	files := http.StripPrefix("/static/", http.FileServerFS(webRoot))
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", pageSecurity)
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}
}
