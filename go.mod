module github.com/schedbot/schedbot

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/oklog/ulid/v2 v2.1.2
	github.com/robfig/cron/v3 v3.0.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.etcd.io/bbolt v1.5.0
	golang.org/x/text v0.43.0
	gopkg.in/yaml.v3 v3.0.1
)

require golang.org/x/sys v0.48.0 // indirect
