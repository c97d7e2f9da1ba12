package rules

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDbgJ(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("DBG"), "||") {
		in := input(s)
		in.Jobs = tableJobRefs()
		in.Channel, in.ChannelID, in.ProfileID = "slack", "C0TEAM", "team"
		d := Decide(in)
		out := fmt.Sprintf("%s %s %s%s%s", d.Function, d.Args, d.Clarify, d.Unsupported, d.Reply)
		out = strings.ReplaceAll(out, `"targetRef":{"channel":"slack","channelId":"C0TEAM","channelProfileId":"team","postingMode":"channel_post"}`, "")
		out = strings.ReplaceAll(out, `"functionId":"message.post","type":"command_invoke"`, "")
		fmt.Printf("%-60q -> %.200s\n", s, out)
	}
}
