package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Config bounds what one server holds and accepts.
type Config struct {
	// MaxBodyBytes bounds a request body (413 beyond it).
	MaxBodyBytes int64
	// MaxActionBytes bounds the text of one move (400 beyond it).
	MaxActionBytes int
	// MaxEpisodes bounds the live episodes; a reset beyond it first drops
	// expired and finished episodes, else gets 503.
	MaxEpisodes int
	// MaxEpisodesPerClient bounds the live episodes started from one remote
	// IP address (429 beyond it), so that one client cannot take every slot.
	MaxEpisodesPerClient int
	// IdleTTL: an episode untouched for longer is dropped (404 after).
	IdleTTL time.Duration
	// MaxTaskBytes bounds the estimated heap of the configured tasks held,
	// whether cached for reuse or pinned by live episodes: the least
	// recently used unpinned ones are dropped to make room, and a reset
	// whose new configuration does not fit gets 503.
	MaxTaskBytes int64
	// MaxBuilds bounds the task builds (new configurations) that run at
	// once; further ones queue.
	MaxBuilds int
	// Now is the clock (time.Now when nil), replaceable in tests.
	Now func() time.Time
}

// DefaultConfig is what cmd/envserver starts with.
func DefaultConfig() Config {
	return Config{MaxBodyBytes: 64 << 10, MaxActionBytes: 16 << 10, MaxEpisodes: 4096, MaxEpisodesPerClient: 1024,
		IdleTTL: 10 * time.Minute, MaxTaskBytes: 64 << 20, MaxBuilds: 2}
}

// Validate reports the first bad field.
func (c Config) Validate() error {
	switch {
	case c.MaxBodyBytes < 1024:
		return fmt.Errorf("MaxBodyBytes must be at least 1024, got %d", c.MaxBodyBytes)
	case c.MaxActionBytes < 1 || int64(c.MaxActionBytes) > c.MaxBodyBytes:
		return fmt.Errorf("MaxActionBytes must lie in [1, MaxBodyBytes], got %d", c.MaxActionBytes)
	case c.MaxEpisodes < 1:
		return fmt.Errorf("MaxEpisodes must be positive, got %d", c.MaxEpisodes)
	case c.MaxEpisodesPerClient < 1:
		return fmt.Errorf("MaxEpisodesPerClient must be positive, got %d", c.MaxEpisodesPerClient)
	case c.IdleTTL <= 0:
		return fmt.Errorf("IdleTTL must be positive, got %v", c.IdleTTL)
	case c.MaxTaskBytes < 1<<20:
		return fmt.Errorf("MaxTaskBytes must be at least 1 MiB (one task at the config bounds), got %d", c.MaxTaskBytes)
	case c.MaxBuilds < 1:
		return fmt.Errorf("MaxBuilds must be positive, got %d", c.MaxBuilds)
	}
	return nil
}

// Server serves the registered tasks' text episodes over HTTP and JSON.
type Server struct {
	cfg    Config
	store  *store
	fields sync.Map // task name → its config's field names
	mux    *http.ServeMux
	// methods maps each endpoint's path to its method, for 405 answers.
	methods map[string]string
}

// New makes a server; the tasks it serves are those registered with
// package tasks (link arew/tasks/all for every task).
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	for _, name := range tasks.Names() {
		if textworld.Registered(name) {
			return nil, fmt.Errorf("serve: %q is both a task and a text environment", name)
		}
	}
	s := &Server{cfg: cfg, store: newStore(cfg), mux: http.NewServeMux(), methods: map[string]string{}}
	s.route("GET /health", s.health)
	s.route("GET /metadata", s.metadata)
	s.route("GET /schema", s.schema)
	s.route("GET /tasks", s.tasks)
	s.route("POST /reset", s.reset)
	s.route("POST /step", s.step)
	s.route("GET /state", s.state)
	s.route("POST /close", s.close)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if m, ok := s.methods[r.URL.Path]; ok {
			w.Header().Set("Allow", m)
			fail(w, http.StatusMethodNotAllowed, "%s %s: use %s", r.Method, r.URL.Path, m)
			return
		}
		fail(w, http.StatusNotFound, "no such endpoint %s %s (see GET /metadata)", r.Method, r.URL.Path)
	})
	return s, nil
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// serveHTTP answers a path that is not clean (//reset, /./health,
// /a/../reset, /reset/) with a JSON 404 where http.ServeMux would redirect
// with an HTML body, then routes.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "" || p[0] != '/' || path.Clean(p) != p || r.Method == http.MethodConnect {
		fail(w, http.StatusNotFound, "no such endpoint %s %q (see GET /metadata)", r.Method, p)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Live is the number of episodes held.
func (s *Server) Live() int { return s.store.Len() }

// Sweep drops the episodes idle past the TTL (resets also do it when the
// server is full); cmd/envserver calls it periodically.
func (s *Server) Sweep() { s.store.Sweep() }

// handler answers with a status and a JSON value, or an error.
type handler func(r *http.Request) (int, any, error)

// route registers h for a "METHOD /path" pattern. Another method on the
// path gets 405 from the mux; a panic in h (a bug) becomes a 500 rather
// than a dropped connection.
func (s *Server) route(pattern string, h handler) {
	method, path, _ := strings.Cut(pattern, " ")
	s.methods[path] = method
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				fail(w, http.StatusInternalServerError, "internal error: %v", p)
			}
		}()
		status, v, err := h(r)
		if err != nil {
			fail(w, status, "%s", err.Error())
			return
		}
		reply(w, status, v)
	})
}

// reply writes v as JSON, with <, > and & left as they are (the texts
// carry tags such as <answer>).
func reply(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fail(w, http.StatusInternalServerError, "encode reply: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail writes {"error": message}.
func fail(w http.ResponseWriter, status int, format string, args ...any) {
	b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf(format, args...)})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// decode reads a bounded JSON body into v, rejecting unknown fields, field
// names in another case than v's, duplicate keys and trailing data. It
// returns the status to answer with on failure.
func (s *Server) decode(r *http.Request, v any) (int, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", s.cfg.MaxBodyBytes)
		}
		return http.StatusBadRequest, fmt.Errorf("read body: %v", err)
	}
	if strings.TrimSpace(string(body)) == "" {
		body = []byte("{}")
	}
	if err := checkJSON(body, jsonFields(v)); err != nil {
		return http.StatusBadRequest, fmt.Errorf("bad JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return http.StatusBadRequest, fmt.Errorf("bad JSON: %v", err)
	}
	if dec.More() {
		return http.StatusBadRequest, fmt.Errorf("bad JSON: data after the object")
	}
	return 0, nil
}
