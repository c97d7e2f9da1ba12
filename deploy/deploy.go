// Package deploy holds what installing schedbot needs: the Slack app
// manifest, embedded so that `schedbot slack check` compares a workspace's
// app with it.
package deploy

import _ "embed"

// SlackManifest is slack-manifest.yaml.
//
//go:embed slack-manifest.yaml
var SlackManifest []byte
