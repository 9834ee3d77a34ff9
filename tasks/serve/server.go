package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
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
	// IdleTTL: an episode untouched for longer is dropped (404 after).
	IdleTTL time.Duration
	// MaxTasks bounds the configured tasks kept for reuse.
	MaxTasks int
	// Now is the clock (time.Now when nil), replaceable in tests.
	Now func() time.Time
}

// DefaultConfig is what cmd/envserver starts with.
func DefaultConfig() Config {
	return Config{MaxBodyBytes: 64 << 10, MaxActionBytes: 16 << 10, MaxEpisodes: 4096,
		IdleTTL: 10 * time.Minute, MaxTasks: 64}
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
	case c.IdleTTL <= 0:
		return fmt.Errorf("IdleTTL must be positive, got %v", c.IdleTTL)
	case c.MaxTasks < 1:
		return fmt.Errorf("MaxTasks must be positive, got %d", c.MaxTasks)
	}
	return nil
}

// Server serves the registered tasks' text episodes over HTTP and JSON.
type Server struct {
	cfg   Config
	store *store
	mux   *http.ServeMux
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
	s := &Server{cfg: cfg, store: newStore(cfg.MaxEpisodes, cfg.MaxTasks, cfg.IdleTTL, cfg.Now), mux: http.NewServeMux(), methods: map[string]string{}}
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
func (s *Server) Handler() http.Handler { return s.mux }

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

// decode reads a bounded JSON body into v, rejecting unknown fields and
// trailing data. It returns the status to answer with on failure.
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
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return http.StatusBadRequest, fmt.Errorf("bad JSON: %v", err)
	}
	if dec.More() {
		return http.StatusBadRequest, fmt.Errorf("bad JSON: data after the object")
	}
	return 0, nil
}
