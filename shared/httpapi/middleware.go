package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"runtime/debug"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/syncassist/syncassist/shared/dlp"
)

// HeaderCorrelationID carries a caller's correlation id in and the service's out.
const HeaderCorrelationID = "X-Correlation-Id"

// AttributeCorrelationID is the SQS message attribute that carries a request's correlation
// id to the work it enqueued, so one id follows a sync error from webhook to ERP write.
const AttributeCorrelationID = "correlation_id"

type correlationKey struct{}
type loggerKey struct{}

// CorrelationID returns the request's correlation id.
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// WithCorrelation returns ctx carrying id and a logger tagged with it.
func WithCorrelation(ctx context.Context, base *slog.Logger, id string) context.Context {
	ctx = context.WithValue(ctx, correlationKey{}, id)
	return context.WithValue(ctx, loggerKey{}, base.With("correlationId", id))
}

// NewCorrelationID returns 128 random bits as hex.
func NewCorrelationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validCorrelationID accepts a caller's id only if it is short and plain, so log lines stay
// clean and nobody injects text into them.
func validCorrelationID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '=') {
			return false
		}
	}
	return true
}

// StatusRecorder keeps the status a handler answered with (200 when it wrote a body without
// one); Unwrap lets http.ResponseController reach the writer's Flush and deadlines.
type StatusRecorder struct {
	http.ResponseWriter
	Status int
}

func (s *StatusRecorder) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *StatusRecorder) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap is the writer the recorder wraps.
func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Instrument gives every request a correlation id (the caller's if it sent a valid one),
// echoes it in the response, recovers panics into a 500 and logs one line per request.
func Instrument(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The edge names the request: the caller's id, else API Gateway's, else a fresh one.
		id := r.Header.Get(HeaderCorrelationID)
		if !validCorrelationID(id) {
			id = NewCorrelationID()
			if gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok && validCorrelationID(gw.RequestID) {
				id = gw.RequestID
			}
		}
		ctx := WithCorrelation(r.Context(), LambdaLogger(r.Context(), log), id)
		r = r.WithContext(ctx)
		w.Header().Set(HeaderCorrelationID, id)
		rec := &StatusRecorder{ResponseWriter: w}
		start := time.Now()
		defer func() {
			if v := recover(); v != nil {
				Logger(ctx).Error("panic", "panic", panicText(v), "stack", string(debug.Stack()))
				if rec.Status == 0 {
					WriteProblem(rec, r, NewProblem(http.StatusInternalServerError, "internal_error",
						"The service failed to handle the request; quote the correlation id when reporting it."))
				}
			}
			Logger(ctx).Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.Status,
				"durationMs", float64(time.Since(start).Microseconds())/1000)
		}()
		next.ServeHTTP(rec, r)
	})
}

// panicText is a panic's value for the log, redacted by the DLP's record policy: a panic's
// message can quote the data it failed on (a formatted record, a token). The stack beside
// it names functions and lines, and prints arguments only as machine words. Bytes (a
// payload's json.RawMessage, a body) are read as their text: fmt.Sprint prints them as
// decimal numbers, which the redaction cannot read and anyone can decode. Bytes that say
// how they print (net.IP's String) print so.
func panicText(v any) string {
	text := fmt.Sprint(v)
	switch v.(type) {
	case error, fmt.Stringer: // they say how they print
	default:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			text = string(rv.Bytes())
		}
	}
	text, err := dlp.NewScanner().RedactString(dlp.Record, text)
	if err != nil {
		return "(a panic whose text could not be redacted)"
	}
	return text
}

// LambdaLogger is base with the invocation's Lambda request id, when ctx is a Lambda
// invocation's, so every line of it can be found by the id Lambda reports.
func LambdaLogger(ctx context.Context, base *slog.Logger) *slog.Logger {
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		return base.With("requestId", lc.AwsRequestID)
	}
	return base
}

// NewLogger returns the JSON logger every function uses: to standard error, redacted
// (RedactLogs).
func NewLogger(level slog.Level) *slog.Logger { return NewLoggerTo(os.Stderr, level) }

// NewLoggerTo is NewLogger writing to w (a harness that reads what the service logged).
func NewLoggerTo(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(RedactLogs(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}
