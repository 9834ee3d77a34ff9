package serve

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"arew/tasks"
	"arew/tasks/textworld"
)

// live is one episode held by the server: a task's text episode (ep) or
// a text environment's (cmd). Its mutex orders the steps of one episode;
// different episodes step concurrently.
type live struct {
	mu     sync.Mutex
	id     string // the client's name for it (not secret, not unique)
	token  string // the server's secret: every call must carry it
	client string // the remote IP that started it, for the per-client limit
	task   string
	split  string
	index  int64
	ep     *tasks.TextEpisode
	cmd    *commandEpisode
	entry  *taskEntry // the configured task it pins

	// Guarded by the store's mutex.
	lastUsed time.Time
	done     bool
	elem     *list.Element // in store.active, or store.finished once done
}

// over reports whether the episode has ended (the caller holds l.mu).
func (l *live) over() bool {
	if l.cmd != nil {
		return l.cmd.env.Done()
	}
	return l.ep.Done()
}

// taskEntry is one configured task (task and face) or text environment
// (world), built once by the first request that names its configuration
// (others wait on ready) and shared by every episode of that
// configuration.
type taskEntry struct {
	key    string
	client string        // who asked for it first (its build counts against that client)
	ready  chan struct{} // closed when the build ends; the fields below are then fixed
	task   tasks.Task
	face   *tasks.TextFace
	world  textworld.World
	err    error
	code   int // the status err answers with

	// Guarded by the store's mutex.
	bytes int64         // estimated heap of task, face and key (sizeOf)
	refs  int           // live episodes and requests holding it
	idle  *list.Element // in store.idleTasks while built and unreferenced
	built bool
}

// store holds the live episodes, at most maxEpisodes of them (perClient
// for one remote IP), and the configured tasks they were made from, at
// most maxTaskBytes of them (cached or pinned by episodes). Every
// operation under its mutex is O(1) amortised: episodes sit in two lists,
// unfinished and finished, each in order of last use, so expiry pops from
// the back and eviction takes the back of the finished list.
type store struct {
	max, perClient int
	ttl            time.Duration
	now            func() time.Time
	maxTaskBytes   int64
	builds         chan struct{}    // a slot per concurrent task build
	buildHook      func(key string) // tests: called as a build starts

	mu               sync.Mutex
	byToken          map[string]*live
	active, finished list.List // of *live, front = most recently used
	pending          int       // reserved slots of resets in progress
	clients          map[string]int
	taskByKey        map[string]*taskEntry
	idleTasks        list.List      // of *taskEntry, front = most recently used
	taskBytes        int64          // of the built entries in taskByKey
	building         map[string]int // client → builds it started, queued or running
}

// maxClientBuilds bounds the builds one client has queued or running.
const maxClientBuilds = 2

var (
	errFull       = errors.New("too many live episodes")
	errClientFull = errors.New("too many live episodes for this client")
	errNotFound   = errors.New("unknown episode")
)

func newStore(cfg Config) *store {
	s := &store{max: cfg.MaxEpisodes, perClient: cfg.MaxEpisodesPerClient, ttl: cfg.IdleTTL, now: cfg.Now,
		maxTaskBytes: cfg.MaxTaskBytes, builds: make(chan struct{}, cfg.MaxBuilds),
		byToken: map[string]*live{}, clients: map[string]int{}, taskByKey: map[string]*taskEntry{}, building: map[string]int{}}
	s.active.Init()
	s.finished.Init()
	s.idleTasks.Init()
	return s
}

// task returns the named task with config, built once per configuration
// outside the store's lock, and pins it: the caller must unpin it, or hand
// the pin to an episode (commit). A caller whose ctx ends stops waiting
// (the build, bounded by the tasks' config validation, completes for the
// next caller, unless no one waits for it any more when its turn to build
// comes). The status is that of the error.
//
// A client (a remote IP; "" for the server itself) may have at most
// maxClientBuilds builds of new configurations queued or running (429
// beyond), so that one client's stream of new configurations cannot queue
// up ahead of everyone else's. The defaults of the registered tasks (a
// finite set, shared by all) do not count.
func (s *store) task(ctx context.Context, client, name string, config json.RawMessage) (*taskEntry, int, error) {
	key, err := taskKey(name, config)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	s.mu.Lock()
	e, ok := s.taskByKey[key]
	if !ok {
		if key == name {
			client = ""
		}
		if client != "" && s.building[client] >= maxClientBuilds {
			s.mu.Unlock()
			return nil, http.StatusTooManyRequests, fmt.Errorf("%d new configurations of this client are being built: wait for them", maxClientBuilds)
		}
		e = &taskEntry{key: key, client: client, ready: make(chan struct{})}
		s.taskByKey[key] = e
		s.building[client]++
		go s.build(e, name, config)
	}
	s.pinLocked(e)
	s.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		s.unpin(e)
		return nil, statusClientGone, fmt.Errorf("request cancelled while the task was built: %w", ctx.Err())
	}
	if e.err != nil {
		s.unpin(e)
		return nil, e.code, e.err
	}
	return e, 0, nil
}

// statusClientGone answers a request whose client left (nobody reads it).
const statusClientGone = http.StatusRequestTimeout

// build makes e's task, at most cap(builds) at a time, then charges its
// size to the task budget, evicting unreferenced tasks as needed; if the
// budget is still exceeded (tasks pinned by live episodes fill it), the
// build is refused with 503.
func (s *store) build(e *taskEntry, name string, config json.RawMessage) {
	defer func() {
		s.mu.Lock()
		if s.building[e.client]--; s.building[e.client] <= 0 {
			delete(s.building, e.client)
		}
		s.mu.Unlock()
	}()
	s.builds <- struct{}{}
	defer func() { <-s.builds }()
	s.mu.Lock()
	wanted := e.refs > 0
	if !wanted {
		s.failLocked(e, statusClientGone, errors.New("abandoned: every request for it left"))
	}
	s.mu.Unlock()
	if !wanted {
		return
	}
	if s.buildHook != nil {
		s.buildHook(e.key)
	}
	var t tasks.Task
	var face *tasks.TextFace
	var world textworld.World
	var err error
	if textworld.Registered(name) {
		world, err = buildWorld(name, config)
	} else {
		t, face, err = buildTask(name, config)
	}
	var size int64
	if err == nil {
		size = sizeOf(t) + sizeOf(face) + sizeOf(world) + int64(len(e.key))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failLocked(e, http.StatusBadRequest, err)
		return
	}
	s.evictTasksLocked(s.maxTaskBytes - size)
	if s.taskBytes+size > s.maxTaskBytes {
		s.failLocked(e, http.StatusServiceUnavailable, fmt.Errorf("task memory full: the configured tasks held by live episodes take %d of %d bytes and this one needs %d; close episodes of other configurations, or use a configuration already in use",
			s.taskBytes, s.maxTaskBytes, size))
		return
	}
	e.task, e.face, e.world, e.bytes, e.built = t, face, world, size, true
	s.taskBytes += size
	if e.refs == 0 {
		e.idle = s.idleTasks.PushFront(e)
	}
	close(e.ready)
}

// buildTask makes the task and its text face; a panic (a task bug) is an
// error, not a crashed server.
func buildTask(name string, config json.RawMessage) (t tasks.Task, face *tasks.TextFace, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, face, err = nil, nil, fmt.Errorf("task %s: internal error: %v", name, p)
		}
	}()
	if t, err = tasks.New(name, config); err != nil {
		return nil, nil, err
	}
	if face, err = tasks.TextFaceOf(t); err != nil {
		return nil, nil, err
	}
	return t, face, nil
}

// buildWorld makes a text environment's world; a panic is an error.
func buildWorld(name string, config json.RawMessage) (w textworld.World, err error) {
	defer func() {
		if p := recover(); p != nil {
			w, err = nil, fmt.Errorf("environment %s: internal error: %v", name, p)
		}
	}()
	return textworld.NewWorld(name, config)
}

// failLocked ends e's build with an error and forgets e, so that the next
// request for its configuration tries again.
func (s *store) failLocked(e *taskEntry, code int, err error) {
	e.err, e.code = err, code
	if s.taskByKey[e.key] == e {
		delete(s.taskByKey, e.key)
	}
	close(e.ready)
}

func (s *store) pinLocked(e *taskEntry) {
	e.refs++
	if e.idle != nil {
		s.idleTasks.Remove(e.idle)
		e.idle = nil
	}
}

func (s *store) unpin(e *taskEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unpinLocked(e)
}

func (s *store) unpinLocked(e *taskEntry) {
	e.refs--
	if e.refs == 0 && e.built && s.taskByKey[e.key] == e {
		e.idle = s.idleTasks.PushFront(e)
	}
}

// evictTasksLocked forgets the least recently used unreferenced tasks
// until the built ones take at most limit bytes (or none is left to drop).
func (s *store) evictTasksLocked(limit int64) {
	for s.taskBytes > limit && s.idleTasks.Len() > 0 {
		e := s.idleTasks.Remove(s.idleTasks.Back()).(*taskEntry)
		e.idle = nil
		delete(s.taskByKey, e.key)
		s.taskBytes -= e.bytes
	}
}

// taskKey is name plus the config, compacted; no config, null and {} are
// the same key.
func taskKey(name string, config json.RawMessage) (string, error) {
	if len(config) == 0 {
		return name, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, config); err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	b := buf.Bytes()
	if s := string(b); s == "null" || s == "{}" {
		return name, nil
	}
	if b[0] != '{' {
		return "", fmt.Errorf("config must be a JSON object")
	}
	return name + "\x00" + string(b), nil
}

// reserve takes a slot for a reset by client before anything is built, so
// that a refusal costs O(1): over the client's limit (after dropping
// expired episodes) it is errClientFull; when the store is full it first
// drops expired episodes, then the least recently used finished one, and
// else refuses with errFull. A reservation ends in commit or release.
func (s *store) reserve(client string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.clients[client] >= s.perClient {
		s.expireLocked(now)
		if s.clients[client] >= s.perClient {
			return errClientFull
		}
	}
	if len(s.byToken)+s.pending >= s.max {
		s.expireLocked(now)
	}
	if len(s.byToken)+s.pending >= s.max {
		if s.finished.Len() == 0 {
			return errFull
		}
		s.removeLocked(s.finished.Back().Value.(*live))
	}
	s.pending++
	s.clients[client]++
	return nil
}

// release gives back a reservation that made no episode.
func (s *store) release(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending--
	s.dropClientLocked(client)
}

// commit turns a reservation into the live episode l (its entry's pin
// passes to it) and returns its token.
func (s *store) commit(l *live) string {
	token := newToken()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending--
	l.token, l.lastUsed = token, s.now()
	l.elem = s.active.PushFront(l)
	s.byToken[token] = l
	return token
}

// get finds the episode with this id and token and marks it used; a wrong
// token is exactly an unknown id. An expired episode is dropped.
func (s *store) get(id, token string) (*live, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.byToken[token]
	if l == nil || subtle.ConstantTimeCompare([]byte(l.id), []byte(id)) != 1 {
		return nil, errNotFound
	}
	now := s.now()
	if now.Sub(l.lastUsed) > s.ttl {
		s.removeLocked(l)
		return nil, errNotFound
	}
	l.lastUsed = now
	if l.done {
		s.finished.MoveToFront(l.elem)
	} else {
		s.active.MoveToFront(l.elem)
	}
	return l, nil
}

// markDone moves an episode that has just ended to the finished list,
// where a full store may evict it.
func (s *store) markDone(l *live) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.done || s.byToken[l.token] != l {
		return
	}
	l.done = true
	s.active.Remove(l.elem)
	l.elem = s.finished.PushFront(l)
}

// remove drops the episode with this id and token; it reports whether it
// was there.
func (s *store) remove(id, token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.byToken[token]
	if l == nil || subtle.ConstantTimeCompare([]byte(l.id), []byte(id)) != 1 {
		return false
	}
	s.removeLocked(l)
	return true
}

func (s *store) removeLocked(l *live) {
	delete(s.byToken, l.token)
	if l.done {
		s.finished.Remove(l.elem)
	} else {
		s.active.Remove(l.elem)
	}
	s.dropClientLocked(l.client)
	s.unpinLocked(l.entry)
}

func (s *store) dropClientLocked(client string) {
	if s.clients[client] <= 1 {
		delete(s.clients, client)
	} else {
		s.clients[client]--
	}
}

// Len is the number of episodes held (expired ones included until swept).
func (s *store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byToken)
}

// Sweep drops every episode idle for longer than the TTL.
func (s *store) Sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(s.now())
}

// expireLocked pops expired episodes from the backs of the two lists; the
// cost is the number dropped.
func (s *store) expireLocked(now time.Time) {
	for _, lst := range []*list.List{&s.active, &s.finished} {
		for lst.Len() > 0 {
			l := lst.Back().Value.(*live)
			if now.Sub(l.lastUsed) <= s.ttl {
				break
			}
			s.removeLocked(l)
		}
	}
}

// newID is a server-drawn episode id; newToken an episode's secret. Both
// are 128 random bits from crypto/rand.
func newID() string    { return "ep-" + rand.Text() }
func newToken() string { return rand.Text() }
