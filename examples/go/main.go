// Command ctxconform-example implements two agent-context specs, shared-context and read-context, behind
// ctxconform's stdio adapter protocol: one JSON object per line on stdin, one reply per line on stdout.
//
//	→ {"type":"start","protocol":1,"state_dir":"...","options":{...}}   ← {"type":"started",...}
//	→ {"type":"call","seq":1,"spec":"...","op":"...","args":...,"context":{...}}   ← {"type":"reply","seq":1,...}
//	→ {"type":"stop"}   ← {"type":"stopped"}
//
// Nothing but protocol messages may be written to stdout; diagnostics go to stderr.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
)

// message is any message the harness sends. The fields a call carries for a spec (args, context) are kept as raw
// JSON: each spec decodes them itself and checks every type by hand, since they may be malformed on purpose.
type message struct {
	Type     string                     `json:"type"`
	Seq      json.RawMessage            `json:"seq"`
	Spec     string                     `json:"spec"`
	Op       string                     `json:"op"`
	Args     json.RawMessage            `json:"args"`
	Context  json.RawMessage            `json:"context"`
	StateDir string                     `json:"state_dir"`
	Options  map[string]json.RawMessage `json:"options"`
}

// reply answers a call with exactly one of result, error (a refusal the spec or the protocol defines) or errored
// (an unexpected failure of the implementation).
type reply struct {
	Type    string          `json:"type"`
	Seq     json.RawMessage `json:"seq"`
	Result  any             `json:"result,omitempty"`
	Error   *specError      `json:"error,omitempty"`
	Errored *errored        `json:"errored,omitempty"`
}

type errored struct {
	Message   string `json:"message"`
	Traceback string `json:"traceback,omitempty"`
}

// specError is a refusal with a code: the spec's own codes (KEY_NOT_FOUND, ...) or the protocol's UNKNOWN_OP and
// INVALID_REQUEST. Any other error a handler returns is reported as "errored".
type specError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *specError) Error() string { return e.Code + ": " + e.Message }

// refuse returns a spec error; the message is for people, so it says what to send instead.
func refuse(code, format string, args ...any) error {
	return &specError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// server holds the two specs; both are opened by start.
type server struct {
	shared *sharedContext
	read   *readContext
}

func main() {
	log.SetPrefix("ctxconform-example: ")
	log.SetFlags(0)

	// bufio.Reader rather than bufio.Scanner: a message can be megabytes long (the suites send 1 MB keys and values),
	// far beyond the Scanner's default 64 KiB token limit.
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var srv server
	for {
		line, readErr := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			answer, stop := srv.handle(line)
			if answer != nil {
				if err := writeLine(out, answer); err != nil {
					log.Fatalf("cannot write to stdout: %v", err)
				}
			}
			if stop {
				return
			}
		}
		if readErr != nil {
			if readErr != io.EOF {
				log.Fatalf("cannot read stdin: %v", readErr)
			}
			return // the harness closed stdin: there is nobody left to answer
		}
	}
}

// writeLine writes one message as one line and flushes it at once: the harness waits for each reply.
func writeLine(out *bufio.Writer, value any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" stays "<": nothing here is embedded in HTML
	if err := enc.Encode(value); err != nil {
		// Only a bug makes a reply unencodable; answer the call anyway rather than leave the harness waiting.
		r, ok := value.(*reply)
		if !ok {
			return err
		}
		buf.Reset()
		failed := &reply{Type: "reply", Seq: r.Seq, Errored: &errored{Message: "cannot encode the reply: " + err.Error()}}
		if err := enc.Encode(failed); err != nil {
			return err
		}
	}
	if _, err := out.Write(buf.Bytes()); err != nil { // Encode ended the line with "\n"
		return err
	}
	return out.Flush()
}

// handle answers one line; it returns nil when there is nothing to answer, and stop once the harness said stop.
func (s *server) handle(line []byte) (answer any, stop bool) {
	var msg message
	if err := json.Unmarshal(line, &msg); err != nil {
		// Without a seq there is no call to answer: say so on stderr and keep serving.
		log.Printf("ignored a line that is not a protocol message: %v", err)
		return nil, false
	}
	switch msg.Type {
	case "start":
		return s.start(msg), false
	case "call":
		return s.call(msg), false
	case "stop":
		return map[string]string{"type": "stopped"}, true
	}
	log.Printf("ignored a message of unknown type %q", msg.Type)
	return nil, false
}

// start opens both specs on the state folder the harness gives; after a restart it is the same folder.
func (s *server) start(msg message) any {
	shared, err := openSharedContext(filepath.Join(msg.StateDir, "shared-context"))
	if err != nil {
		log.Fatalf("cannot open the shared-context state in %s: %v", msg.StateDir, err)
	}
	var folders struct {
		WorkspaceRoot string `json:"workspace_root"`
		TastesDir     string `json:"tastes_dir"`
	}
	if raw, ok := msg.Options["read-context"]; ok {
		if err := json.Unmarshal(raw, &folders); err != nil {
			log.Printf("ignored malformed read-context options: %v", err)
		}
	}
	if folders.WorkspaceRoot == "" {
		folders.WorkspaceRoot = filepath.Join(msg.StateDir, "read-context", "workspaces")
	}
	if folders.TastesDir == "" {
		folders.TastesDir = filepath.Join(msg.StateDir, "read-context", "tastes")
	}
	s.shared = shared
	s.read = &readContext{workspaceRoot: folders.WorkspaceRoot, tastesDir: folders.TastesDir}

	// Declare only what is implemented: the kit skips the tests of undeclared optional features.
	return map[string]any{
		"type":           "started",
		"implementation": map[string]string{"name": "ctxconform-go-example", "version": "0.1.0", "language": "go"},
		"specs": map[string]any{
			sharedContextSpec: map[string]any{"version": sharedContextVersion, "features": sharedContextFeatures},
			readContextSpec:   map[string]any{"version": readContextVersion, "features": []string{}},
		},
	}
}

// call carries out one operation. A panic is caught and reported as "errored" (with its stack), so one bad call
// costs one test, not the process.
func (s *server) call(msg message) (answer *reply) {
	answer = &reply{Type: "reply", Seq: msg.Seq}
	defer func() {
		if p := recover(); p != nil {
			answer.Result, answer.Error = nil, nil
			answer.Errored = &errored{Message: fmt.Sprint("panic: ", p), Traceback: string(debug.Stack())}
		}
	}()

	var result any
	var err error
	switch {
	case s.shared == nil:
		err = errors.New("a call came before start")
	case msg.Spec == sharedContextSpec:
		result, err = s.shared.call(msg.Op, msg.Args, msg.Context)
	case msg.Spec == readContextSpec:
		result, err = s.read.call(msg.Op, msg.Args)
	default:
		err = refuse("UNKNOWN_OP", "this implementation does not implement the spec %q", msg.Spec)
	}

	var refusal *specError
	switch {
	case errors.As(err, &refusal):
		answer.Error = refusal
	case err != nil:
		answer.Errored = &errored{Message: err.Error()}
	default:
		answer.Result = result
	}
	return answer
}
