package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// runChat is a terminal conversation through the whole pipeline: each line
// becomes a message item, the selector and the worker answer it, and the
// scheduler runs in the same process, so fired jobs print here too.
func runChat(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("chat", stderr)
	var common commonFlags
	common.register(fs)
	profileID := fs.String("profile", "", "the channel profile to talk through (default: the terminal profile)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("chat takes no arguments")
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	pid := *profileID
	if pid == "" {
		pid = defaultTarget(cfg, firstOrchestrator(cfg)).ChannelProfileID
	}
	prof, err := cfg.Profile(pid)
	if err != nil {
		return usagef("--profile: %v", err)
	}
	if prof.Channel != config.ChannelTerminal {
		return usagef("--profile %s is a %s profile; chat talks through a terminal profile", pid, prof.Channel)
	}
	if c, err := dialDaemon(cfg); err != nil {
		return err
	} else if c != nil {
		return fmt.Errorf("a schedbot serve is running on %s and holds the stores; stop it to chat, or use `schedbot call`", cfg.Server.Socket)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	level := slog.LevelWarn // the conversation is the output; logs only when something is wrong
	d, wait, err := startDaemon(ctx, cfg, newLogger(stderr, level), stdout, "")
	if err != nil {
		return err
	}
	oc := d.orchs[prof.OrchestratorID]
	sender, senderID := chatUser()
	fmt.Fprintf(stdout, "schedbot chat — orchestrator %s, zone %s. Tell me what to schedule, e.g. “post hello every Friday at 9am”. Ctrl-D to quit.\n",
		oc.cfg.ID, zoneFor(prof, oc.cfg))
	fmt.Fprintf(stdout, "Data: %s (--data DIR to keep it elsewhere).\n", dataWhere(cfg))
	if note := oldDataNote(common, cfg); note != "" {
		fmt.Fprintln(stderr, note)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	session := "terminal-" + strconv.Itoa(os.Getpid())
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case line, ok := <-lines:
			if !ok {
				done = true
				break
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			payload, _ := json.Marshal(orchestrator.Message{Text: line, SenderID: senderID, Sender: sender,
				ChannelID: session, Via: store.ViaCLI})
			err := oc.store.Update(ctx, func(tx store.Tx) error {
				return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: oc.cfg.ID, ChannelProfileID: pid, Payload: payload})
			})
			if err != nil {
				fmt.Fprintln(stderr, "schedbot: "+err.Error())
				continue
			}
			oc.worker.Wake()
		}
	}
	// Let the answers to what was typed arrive before leaving.
	drain(oc.store, 10*time.Second)
	cancel()
	return wait()
}

// drain waits, at most limit, until nothing is left in the queue's
// incoming, processing or outgoing stages.
func drain(st store.Store, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		busy := 0
		st.View(context.Background(), func(tx store.Tx) error {
			for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing} {
				n, _ := tx.QueueCount(q)
				busy += n
			}
			return nil
		})
		if busy == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func chatUser() (name, id string) {
	id = strconv.Itoa(os.Getuid())
	if u, err := user.Current(); err == nil {
		return u.Username, id
	}
	return os.Getenv("USER"), id
}

func zoneFor(p *config.ChannelProfile, o *config.Orchestrator) string {
	if p.Timezone != "" {
		return p.Timezone
	}
	return o.Timezone
}
