// Package llm is the selector that asks an OpenAI-compatible model
// (github.com/sashabaranov/go-openai) for phrasing the rules do not know.
// Every tool call the model makes is only a proposal: it is decoded
// strictly, checked against the profile's functions, validated by the
// function registry, and never carries an orchestrator id.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/prompts"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Config says which endpoint to use. APIKey comes from the environment.
type Config struct {
	BaseURL    string
	Model      string
	APIKey     string
	Timeout    time.Duration // per request; default 30s
	MaxRetries int           // for timeouts, 429 and 5xx; default 2
	HTTPClient *http.Client  // default: a client with Timeout
}

// Tools are the function definitions offered to the model and the way to
// validate a proposal; *functions.Registry provides both.
type Tools interface {
	Tools() []functions.Tool
	Validate(req functions.Request) error
}

// Selector asks the model.
type Selector struct {
	client *openai.Client
	cfg    Config
	tools  Tools
	log    *slog.Logger
}

// ErrUnavailable is a model that could not be reached (after retries).
var ErrUnavailable = errors.New("LLM unavailable")

// New returns an LLM selector. With no API key it returns nil: nothing may
// try the network without one.
func New(cfg Config, tools Tools, log *slog.Logger) *Selector {
	if cfg.APIKey == "" || cfg.BaseURL == "" || cfg.Model == "" {
		return nil
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = 2
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	// A nil *http.Client in the interface would not be nil: choose first.
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: cfg.Timeout}
	}
	oc.HTTPClient = client
	return &Selector{client: openai.NewClientWithConfig(oc), cfg: cfg, tools: tools, log: log}
}

var _ selector.Selector = (*Selector)(nil)

// Select asks the model once, repairs an invalid proposal once with the
// validation error, and otherwise asks the person. ErrUnavailable means the
// model could not be reached; the caller falls back to the rules.
func (s *Selector) Select(ctx context.Context, in selector.Input) (selector.Decision, error) {
	tools := s.offered(in)
	msgs, err := s.messages(in)
	if err != nil {
		return selector.Decision{}, err
	}
	for round := 0; round < 2; round++ {
		resp, err := s.complete(ctx, msgs, tools)
		if err != nil {
			return selector.Decision{}, err
		}
		if len(resp.Choices) == 0 {
			return selector.Decision{}, fmt.Errorf("%w: a reply with no choices", ErrUnavailable)
		}
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return textDecision(in, msg.Content), nil
		}
		d, tc, verr := s.proposal(in, msg.ToolCalls)
		if verr == nil {
			return d, nil
		}
		s.log.Info("llm proposal rejected", slog.String("function", tc.Function.Name), slog.String("error", verr.Error()), slog.Int("round", round))
		// One repair round: the model sees why its call was refused.
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{tc}},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Name: tc.Function.Name,
				Content: "Rejected: " + verr.Error() + ". Call again with corrected arguments, or ask the user one short question."})
	}
	return selector.Decision{Clarify: "I couldn't turn that into a valid schedule. Could you say it another way, with the day and time?",
		Missing: selector.MissingTime,
		Pending: &selector.Pending{Text: in.Text, Missing: selector.MissingTime, Expires: in.Now.Add(selector.PendingTTL)}}, nil
}

// offered are the tools for this profile: its allowed functions only.
func (s *Selector) offered(in selector.Input) []openai.Tool {
	var out []openai.Tool
	for _, t := range s.tools.Tools() {
		if len(in.Functions) > 0 && !slices.Contains(in.Functions, t.Name) {
			continue
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: toolName(t.Name), Description: t.Description, Parameters: json.RawMessage(t.Parameters)}})
	}
	return out
}

// Tool names may not contain dots in the OpenAI API.
func toolName(id string) string     { return strings.ReplaceAll(id, ".", "__") }
func functionID(name string) string { return strings.ReplaceAll(name, "__", ".") }

func (s *Selector) messages(in selector.Input) ([]openai.ChatCompletionMessage, error) {
	loc, err := time.LoadLocation(in.Timezone)
	if err != nil || in.Timezone == "" {
		loc = time.UTC
	}
	channel := "a terminal"
	if in.Channel == "slack" {
		channel = "Slack"
	}
	sys, err := prompts.System(prompts.SystemData{Channel: channel, Now: in.Now.In(loc).Format(time.RFC3339),
		Weekday: in.Now.In(loc).Weekday().String(), Timezone: loc.String(), Workflows: strings.Join(in.Workflows, ", ")})
	if err != nil {
		return nil, err
	}
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: sys}}
	if in.Pending != nil {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in.Pending.Text},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "(asked for the " + in.Pending.Missing + ")"})
	}
	return append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in.Text}), nil
}

// complete calls the model with bounded retries for timeouts, 429 and 5xx.
func (s *Selector) complete(ctx context.Context, msgs []openai.ChatCompletionMessage, tools []openai.Tool) (openai.ChatCompletionResponse, error) {
	req := openai.ChatCompletionRequest{Model: s.cfg.Model, Messages: msgs, Tools: tools, Temperature: 0}
	var last error
	for attempt := 0; attempt <= s.cfg.MaxRetries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return openai.ChatCompletionResponse{}, ctx.Err()
			case <-time.After(time.Duration(attempt) * 250 * time.Millisecond):
			}
		}
		rctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		resp, err := s.client.CreateChatCompletion(rctx, req)
		cancel()
		if err == nil {
			return resp, nil
		}
		last = err
		var apiErr *openai.APIError
		var reqErr *openai.RequestError
		switch {
		case errors.As(err, &apiErr) && (apiErr.HTTPStatusCode == 429 || apiErr.HTTPStatusCode >= 500):
		case errors.As(err, &reqErr) && (reqErr.HTTPStatusCode == 429 || reqErr.HTTPStatusCode >= 500):
		case errors.As(err, &apiErr), errors.As(err, &reqErr):
			return openai.ChatCompletionResponse{}, fmt.Errorf("%w: %v", ErrUnavailable, err) // 4xx: retrying will not help
		case ctx.Err() != nil:
			return openai.ChatCompletionResponse{}, ctx.Err()
		}
		s.log.Warn("llm request failed", slog.Int("attempt", attempt+1), slog.Any("error", err))
	}
	return openai.ChatCompletionResponse{}, fmt.Errorf("%w: %v", ErrUnavailable, last)
}

// stateChanging are the functions of which at most one runs per message.
func stateChanging(fn string) bool { return fn != "schedule.list" && fn != "schedule.show" }

// proposal checks the model's tool calls: the first state-changing one (or
// the first) is taken, its function must be offered, its arguments a JSON
// object that the registry validates; orchestratorId is dropped.
func (s *Selector) proposal(in selector.Input, calls []openai.ToolCall) (selector.Decision, openai.ToolCall, error) {
	tc := calls[0]
	for _, c := range calls {
		if stateChanging(functionID(c.Function.Name)) {
			tc = c
			break
		}
	}
	if tc.ID == "" {
		tc.ID = "call_0"
	}
	fn := functionID(tc.Function.Name)
	offered := false
	for _, t := range s.tools.Tools() {
		if t.Name == fn && (len(in.Functions) == 0 || slices.Contains(in.Functions, fn)) {
			offered = true
		}
	}
	if !offered {
		return selector.Decision{}, tc, fmt.Errorf("%q is not one of the functions offered", tc.Function.Name)
	}
	var args map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader([]byte(tc.Function.Arguments)))
	if err := dec.Decode(&args); err != nil || args == nil {
		return selector.Decision{}, tc, fmt.Errorf("arguments must be a JSON object")
	}
	// The orchestrator comes from the channel profile, never from a model.
	delete(args, "orchestratorId")
	raw, _ := json.Marshal(args)
	req := functions.Request{Function: fn, Args: raw, Actor: selectorActor(in)}
	if err := s.tools.Validate(req); err != nil {
		return selector.Decision{}, tc, err
	}
	return selector.Decision{Function: fn, Args: raw}, tc, nil
}

func selectorActor(in selector.Input) store.Actor {
	return store.Actor{ChannelProfileID: in.ProfileID, SenderID: in.SenderID, Sender: in.Sender, ChannelID: in.ChannelID, Via: store.ViaAPI}
}

// textDecision reads a reply without a tool call: "Unsupported: …" or a question.
func textDecision(in selector.Input, content string) selector.Decision {
	c := strings.TrimSpace(content)
	if rest, ok := strings.CutPrefix(c, "Unsupported:"); ok {
		return selector.Decision{Unsupported: strings.TrimSpace(rest)}
	}
	if c == "" {
		c = "Could you say that another way? For example: post “hello” in #team every Friday at 9am."
	}
	if len(c) > 500 {
		c = c[:500] + "…"
	}
	m := guessMissing(c)
	return selector.Decision{Clarify: c, Missing: m,
		Pending: &selector.Pending{Text: in.Text, Missing: m, Expires: in.Now.Add(selector.PendingTTL)}}
}

func guessMissing(q string) string {
	l := strings.ToLower(q)
	switch {
	case strings.Contains(l, "time") || strings.Contains(l, "when") || strings.Contains(l, "day"):
		return selector.MissingTime
	case strings.Contains(l, "channel") || strings.Contains(l, "where"):
		return selector.MissingTarget
	case strings.Contains(l, "which job") || strings.Contains(l, "which schedule"):
		return selector.MissingJob
	}
	return selector.MissingAction
}
