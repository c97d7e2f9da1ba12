package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/daemon"
	"github.com/schedbot/schedbot/localapi"
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
		pid = app.DefaultTarget(cfg, firstOrchestrator(cfg)).ChannelProfileID
	}
	prof, err := cfg.Profile(pid)
	if err != nil {
		return usagef("--profile: %v", err)
	}
	if prof.Channel != config.ChannelTerminal {
		return usagef("--profile %s is a %s profile; chat talks through a terminal profile", pid, prof.Channel)
	}
	if c, err := localapi.Dial(cfg); err != nil {
		return err
	} else if c != nil {
		return chatThroughServe(ctx, c, cfg, pid, stdin, stdout, stderr)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	level := slog.LevelWarn // the conversation is the output; logs only when something is wrong
	d, err := daemon.Start(ctx, cfg, daemon.Options{Logger: newLogger(stderr, level), Stdout: stdout})
	if err != nil {
		return err
	}
	oc := d.Orchestrator(prof.OrchestratorID)
	sender, senderID := chatUser()
	fmt.Fprintf(stdout, "schedbot chat — orchestrator %s, zone %s. Tell me what to schedule, e.g. “post hello every Friday at 9am”. Ctrl-D to quit.\n",
		oc.Cfg.ID, zoneFor(prof, oc.Cfg))
	fmt.Fprintf(stdout, "Data: %s (--data DIR to keep it elsewhere).\n", app.DataWhere(cfg))
	fmt.Fprintln(stdout, "No schedbot serve is running: reminders fire only while this chat runs. For jobs that keep firing, start `schedbot serve` and chat with it.")
	if note := oldDataNote(common, cfg); note != "" {
		fmt.Fprintln(stderr, note)
	}
	lines := readLines(stdin)
	session := terminalSession
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
			err := d.Say(ctx, pid, orchestrator.Message{Text: line, SenderID: senderID, Sender: sender,
				ChannelID: session, Via: store.ViaCLI})
			if err != nil {
				fmt.Fprintln(stderr, "schedbot: "+err.Error())
			}
		}
	}
	// Let the answers to what was typed arrive before leaving.
	d.Drain(oc.Cfg.ID, 10*time.Second)
	cancel()
	return d.Wait()
}

// terminalSession is the channel a terminal conversation is in. It is the
// same for every chat on a data directory, so that, with the profile and
// the user it is keyed by, the open question and "it" outlive the
// process, as the README says.
const terminalSession = "terminal"

// maxLine is how much of a typed line chat keeps: the selector refuses a
// message that long in words, and the rest of the line is dropped, so
// that a pasted megabyte gets an answer and the chat goes on.
const maxLine = 1 << 20

// readLines sends the lines of r, each cut to maxLine, then closes.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		rd := bufio.NewReaderSize(r, 64<<10)
		for {
			var line []byte
			for {
				part, more, err := rd.ReadLine()
				line = append(line, part[:min(len(part), maxLine-len(line))]...)
				if err != nil {
					if len(line) > 0 {
						lines <- string(line)
					}
					return
				}
				if !more {
					break
				}
			}
			lines <- string(line)
		}
	}()
	return lines
}

// chatThroughServe is chat while a serve runs: each line goes to its local
// API, which answers with the reply. The jobs live in the daemon, so they
// keep firing after chat ends, and their posts are printed where it runs.
func chatThroughServe(ctx context.Context, c *localapi.Client, cfg *config.Config, pid string, stdin io.Reader, stdout, stderr io.Writer) error {
	prof, _ := cfg.Profile(pid)
	o := cfg.Orchestrators[prof.OrchestratorID]
	fmt.Fprintf(stdout, "schedbot chat — orchestrator %s, zone %s, through the running schedbot serve (%s). Tell me what to schedule, e.g. “post hello every Friday at 9am”. Ctrl-D to quit.\n",
		o.ID, zoneFor(prof, o), cfg.Server.Socket)
	fmt.Fprintf(stdout, "Data: %s. Your jobs keep firing after chat ends; serve prints their posts.\n", app.DataWhere(cfg))
	session := terminalSession
	for line := range readLines(stdin) {
		if ctx.Err() != nil {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r localapi.ChatReply
		if err := c.Do(ctx, "/v1/chat", localapi.ChatRequest{Profile: pid, Session: session, Text: line}, &r); err != nil {
			fmt.Fprintln(stderr, "schedbot: "+err.Error())
			continue
		}
		switch {
		case r.Pending:
			fmt.Fprintf(stdout, "%s schedbot: (no answer yet; serve prints it when it comes)\n", time.Now().Format("15:04:05"))
		case r.Text != "":
			fmt.Fprintf(stdout, "%s schedbot: %s\n", time.Now().Format("15:04:05"), r.Text)
		}
	}
	return nil
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
