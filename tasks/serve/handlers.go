package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"arew/tasks"
	"arew/tasks/textworld"
)

func (s *Server) health(*http.Request) (int, any, error) {
	return http.StatusOK, map[string]string{"status": "healthy"}, nil
}

// validID is what a client-chosen episode id may look like.
var validID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// reset starts an episode: POST /reset {task, split, index | seed, config}.
// The order keeps refusals cheap: the request is checked, then a slot is
// reserved (the per-client and global limits, O(1)), and only then is the
// task built (once per configuration, outside the store's lock) and the
// episode made. A client that leaves meanwhile releases its slot.
func (s *Server) reset(r *http.Request) (int, any, error) {
	var req ResetRequest
	if status, err := s.decode(r, &req); err != nil {
		return status, nil, err
	}
	if req.Task == "" {
		return http.StatusBadRequest, nil, fmt.Errorf(`missing "task" (GET /tasks lists them)`)
	}
	split := req.Split
	if split == "" {
		split = "train"
	}
	if err := checkSplit(req.Task, split); err != nil {
		return http.StatusBadRequest, nil, err
	}
	var index int64
	switch {
	case req.Index != nil && req.Seed != nil:
		return http.StatusBadRequest, nil, fmt.Errorf(`give "index" or "seed", not both (seed is the index under OpenEnv's name)`)
	case req.Index != nil:
		index = *req.Index
	case req.Seed != nil:
		index = *req.Seed
	}
	if index < 0 || index >= tasks.MaxInstances {
		return http.StatusBadRequest, nil, fmt.Errorf("index %d outside [0, %d)", index, int64(tasks.MaxInstances))
	}
	if req.EpisodeID != "" && !validID.MatchString(req.EpisodeID) {
		return http.StatusBadRequest, nil, fmt.Errorf("episode_id must be 1 to 64 of A-Z a-z 0-9 _ . -")
	}
	if err := s.checkConfig(req.Task, req.Config); err != nil {
		return http.StatusBadRequest, nil, err
	}
	client := clientOf(r)
	switch err := s.store.reserve(client); {
	case errors.Is(err, errClientFull):
		return http.StatusTooManyRequests, nil, fmt.Errorf("%d live episodes from %s, the limit per client: close finished ones (POST /close) or wait %v for idle ones to expire", s.cfg.MaxEpisodesPerClient, client, s.cfg.IdleTTL)
	case errors.Is(err, errFull):
		return http.StatusServiceUnavailable, nil, fmt.Errorf("%d live episodes, the limit: close finished ones (POST /close) or wait %v for idle ones to expire", s.cfg.MaxEpisodes, s.cfg.IdleTTL)
	case err != nil:
		return http.StatusInternalServerError, nil, err
	}
	committed := false
	var entry *taskEntry
	defer func() {
		if !committed {
			s.store.release(client)
			if entry != nil {
				s.store.unpin(entry)
			}
		}
	}()
	ctx := r.Context()
	entry, status, err := s.store.task(ctx, client, req.Task, req.Config)
	if err != nil {
		return status, nil, err
	}
	if err := ctx.Err(); err != nil {
		return statusClientGone, nil, err
	}
	l := &live{id: req.EpisodeID, client: client, task: req.Task, split: split, index: index, entry: entry}
	obs, info, err := start(l)
	if err != nil {
		return http.StatusBadRequest, nil, err
	}
	if err := ctx.Err(); err != nil {
		return statusClientGone, nil, err
	}
	if l.id == "" {
		l.id = newID()
	}
	token := s.store.commit(l)
	committed = true
	return http.StatusOK, Result{EpisodeID: l.id, Token: token, Observation: obs, Info: info}, nil
}

// checkSplit validates a split name: a task has "train", "val" and "test",
// a text environment also "test-ood" (where it has one: its instances say).
func checkSplit(name, split string) error {
	if textworld.Registered(name) {
		_, err := textworld.ParseSplit(split)
		return err
	}
	var sp tasks.Split
	return sp.UnmarshalText([]byte(split))
}

// start makes l's episode on its built entry: a task's text episode or a
// text environment's, and returns its first observation and the reset's
// info. An error is the client's (a bad index).
func start(l *live) (Observation, ResetInfo, error) {
	info := ResetInfo{Task: l.task, Split: l.split, Index: l.index}
	e := l.entry
	if e.world != nil {
		c, err := startCommands(e.world, l.split, l.index)
		if err != nil {
			return Observation{}, ResetInfo{}, err
		}
		l.cmd = c
		obs := c.observation(true)
		obs.System = systemOf(e.world)
		info.MaxSteps = c.env.MaxSteps()
		return obs, info, nil
	}
	var split tasks.Split
	if err := split.UnmarshalText([]byte(l.split)); err != nil {
		return Observation{}, ResetInfo{}, err
	}
	ep, err := e.task.NewEpisode(split, int(l.index))
	if err != nil {
		return Observation{}, ResetInfo{}, err
	}
	l.ep = tasks.NewTextEpisode(e.face, ep)
	info.MaxTokens = e.task.MaxTokens()
	return Observation{Text: l.ep.Observation(), System: e.face.System(), Turn: turnOf(l.ep)}, info, nil
}

// systemOf is a text environment's system prompt: its rules, then how a
// reply is read.
func systemOf(w textworld.World) string {
	return strings.TrimSpace(w.Rules()) + "\n\n" + textworld.CommandRules
}

// checkConfig requires the config's keys to be exactly (in case too) the
// field names of the task's configuration, as GET /tasks lists them; the
// task's own decoder would match them case-insensitively.
func (s *Server) checkConfig(name string, config json.RawMessage) error {
	if len(config) == 0 {
		return nil
	}
	fields, err := s.configFields(name)
	if err != nil {
		return err
	}
	if err := checkJSON(config, fields); err != nil {
		return fmt.Errorf("config: %v", err)
	}
	return nil
}

// configFields is the set of top-level field names of the task's
// configuration (made once per task name from its defaults).
func (s *Server) configFields(name string) (map[string]bool, error) {
	if f, ok := s.fields.Load(name); ok {
		return f.(map[string]bool), nil
	}
	entry, status, err := s.store.task(context.Background(), "", name, nil)
	if err != nil {
		if status == http.StatusBadRequest {
			return nil, err
		}
		return nil, fmt.Errorf("task %s: %v", name, err)
	}
	defer s.store.unpin(entry)
	var m map[string]json.RawMessage
	var fields map[string]bool // nil (no config to compare with): duplicates only
	if err := json.Unmarshal(entry.config(), &m); err == nil && m != nil {
		fields = map[string]bool{}
		for k := range m {
			fields[k] = true
		}
	}
	s.fields.Store(name, fields)
	return fields, nil
}

// clientOf is the remote IP of a request, the unit of the per-client limit.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// step plays one move: POST /step {episode_id, action}.
func (s *Server) step(r *http.Request) (int, any, error) {
	var req StepRequest
	if status, err := s.decode(r, &req); err != nil {
		return status, nil, err
	}
	text, err := actionText(req.Action)
	if err != nil {
		return http.StatusBadRequest, nil, err
	}
	if len(text) > s.cfg.MaxActionBytes {
		return http.StatusBadRequest, nil, fmt.Errorf("action of %d bytes, over the limit of %d", len(text), s.cfg.MaxActionBytes)
	}
	l, status, err := s.lookup(req.EpisodeID, req.Token)
	if err != nil {
		return status, nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.over() {
		return http.StatusConflict, nil, fmt.Errorf("episode %s is over (POST /reset starts another)", l.id)
	}
	if l.cmd != nil {
		return s.stepCommand(l, text)
	}
	ts, err := l.ep.StepText(text)
	if err != nil {
		return http.StatusInternalServerError, nil, err
	}
	st := ts.Step
	info := StepInfo{Turn: st.Turn, Kind: st.Kind.String(), Final: st.Final, Critique: st.Z, Malformed: st.Malformed,
		ParseError: ts.Parsed.Reason, Repeat: st.Repeat, TruthMass: number(st.TruthMass), Move: st.Text,
		Tokens: append([]int32{}, ts.Parsed.Tokens...)}
	res := Result{EpisodeID: l.id, Observation: Observation{Text: ts.Observation, Turn: turnOf(l.ep)}, Done: l.ep.Done()}
	if res.Done {
		s.store.markDone(l)
		m := l.ep.Measures()
		info.Measures = measureOf(m)
		res.Reward = m.Reward
	}
	res.Info = info
	return http.StatusOK, res, nil
}

// state reports an episode: GET /state?episode_id=…&token=….
func (s *Server) state(r *http.Request) (int, any, error) {
	q := r.URL.Query()
	for k, v := range q {
		if k != "episode_id" && k != "token" {
			return http.StatusBadRequest, nil, fmt.Errorf("unknown query parameter %q (episode_id and token)", k)
		}
		if len(v) > 1 {
			return http.StatusBadRequest, nil, fmt.Errorf("query parameter %q given %d times", k, len(v))
		}
	}
	l, status, err := s.lookup(q.Get("episode_id"), q.Get("token"))
	if err != nil {
		return status, nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd != nil {
		return http.StatusOK, stateOf(l, append([]CommandRecord{}, l.cmd.steps...), l.cmd.turn(), l.cmd.measures), nil
	}
	steps := []StepRecord{}
	for _, s := range l.ep.Steps() {
		steps = append(steps, recordOf(s))
	}
	return http.StatusOK, stateOf(l, steps, turnOf(l.ep), func() *Measure { return measureOf(l.ep.Measures()) }), nil
}

// close forgets an episode: POST /close {episode_id}.
func (s *Server) close(r *http.Request) (int, any, error) {
	var req CloseRequest
	if status, err := s.decode(r, &req); err != nil {
		return status, nil, err
	}
	if status, err := checkIDs(req.EpisodeID, req.Token); err != nil {
		return status, nil, err
	}
	if !s.store.remove(req.EpisodeID, req.Token) {
		return http.StatusNotFound, nil, s.unknown(req.EpisodeID)
	}
	return http.StatusOK, map[string]any{"episode_id": req.EpisodeID, "closed": true}, nil
}

// lookup finds the episode with this id and token; a wrong token answers
// exactly as an unknown id.
func (s *Server) lookup(id, token string) (*live, int, error) {
	if status, err := checkIDs(id, token); err != nil {
		return nil, status, err
	}
	l, err := s.store.get(id, token)
	if err != nil {
		return nil, http.StatusNotFound, s.unknown(id)
	}
	return l, 0, nil
}

func checkIDs(id, token string) (int, error) {
	switch {
	case id == "":
		return http.StatusBadRequest, fmt.Errorf(`missing "episode_id"`)
	case token == "":
		return http.StatusBadRequest, fmt.Errorf(`missing "token" (the episode's secret, returned by /reset)`)
	}
	return 0, nil
}

// unknown is the one answer to an unknown id and to a wrong token.
func (s *Server) unknown(id string) error {
	return fmt.Errorf("unknown episode %q (never started, closed, idle for over %v, or not with this token)", id, s.cfg.IdleTTL)
}

// tasks lists the registered settings, tasks and text environments: GET
// /tasks.
func (s *Server) tasks(r *http.Request) (int, any, error) {
	var out []TaskInfo
	for _, name := range names() {
		e, status, err := s.store.task(r.Context(), "", name, nil)
		if err != nil {
			if status == http.StatusBadRequest {
				status = http.StatusInternalServerError
			}
			return status, nil, err
		}
		ti, err := infoOf(name, e)
		s.store.unpin(e)
		if err != nil {
			return http.StatusInternalServerError, nil, err
		}
		out = append(out, ti)
	}
	return http.StatusOK, map[string]any{"tasks": out, "answer_rules": tasks.AnswerRules, "command_rules": textworld.CommandRules}, nil
}

// infoOf describes a built entry under its defaults.
func infoOf(name string, e *taskEntry) (TaskInfo, error) {
	if e.world == nil {
		return TaskInfo{Name: name, Protocol: ProtocolRounds, Config: e.config(), MaxTokens: e.task.MaxTokens(), System: e.face.System()}, nil
	}
	env, err := e.world.Env(textworld.Train)(0)
	if err != nil {
		return TaskInfo{}, fmt.Errorf("environment %s: %v", name, err)
	}
	return TaskInfo{Name: name, Protocol: ProtocolCommands, Config: e.config(), MaxSteps: env.MaxSteps(), System: systemOf(e.world)}, nil
}

// names lists every name /reset takes: the registered tasks and text
// environments, sorted.
func names() []string {
	out := append(tasks.Names(), textworld.Names()...)
	sort.Strings(out)
	return out
}

// config is the entry's configuration as JSON (configOf).
func (e *taskEntry) config() json.RawMessage {
	if e.world != nil {
		return configOf(e.world)
	}
	return configOf(e.task)
}

// configOf is a task's or a world's configuration as JSON, read through
// its Config method (every task and world has one; new fields appear
// without code here), or null.
func configOf(t any) json.RawMessage {
	m := reflect.ValueOf(t).MethodByName("Config")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(m.Call(nil)[0].Interface())
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
