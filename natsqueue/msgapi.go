package natsqueue

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// JetStream's error codes natsqueue acts on, by number (nats-server's
// jetstream_errors_generated.go), never by an error's text.
const (
	// codeNoMessage (JSNoMessageFoundErr): a get of a message that is not
	// in the stream.
	codeNoMessage = 10037
	// codeSeqNotFound (JSSequenceNotFoundErrF): a delete of a message that
	// is not in the stream (deleted or acked before).
	codeSeqNotFound = 10043
	// codeNoStream (JSStreamNotFoundErr): the stream does not exist.
	codeNoStream = 10059
	// codeWrongLast (JSStreamWrongLastSequenceErrF): a publish refused
	// because a message is stored on the subjects it expected empty.
	codeWrongLast = 10071
	// codeWrongLastInFlight (JSStreamWrongLastSequenceConstantErr): on a
	// replicated stream, a publish refused because another one expecting
	// the same subjects is in flight; it may yet fail, so this says
	// nothing of what is stored.
	codeWrongLastInFlight = 10164
	// codeWrongLastMsgID (JSStreamWrongLastMsgIDErrF): a publish refused
	// because the stream's last message has another publish ID than it
	// expected.
	codeWrongLastMsgID = 10070
)

// apiCode is err's JetStream error code, 0 when err is none.
func apiCode(err error) jetstream.ErrorCode {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return api.ErrorCode
	}
	return 0
}

// msgAPI deletes and reads single messages, asking the stream's leader
// (never a direct get, which a replica that lags may answer) and giving
// the server's errors as *jetstream.APIError, with their codes.
type msgAPI interface {
	deleteMsg(ctx context.Context, stream string, seq uint64) error
	getMsg(ctx context.Context, stream string, req msgGetRequest) (*storedMsg, error)
}

// msgGetRequest is a JetStream message get: by sequence, or the last
// message on a subject (wildcards allowed).
type msgGetRequest struct {
	Seq     uint64 `json:"seq,omitempty"`
	LastFor string `json:"last_by_subj,omitempty"`
}

// storedMsg is what a get returns of a message.
type storedMsg struct {
	Subject  string `json:"subject"`
	Sequence uint64 `json:"seq"`
	Data     []byte `json:"data"`
}

// leaderAPI is msgAPI on a Platform's connection, with JetStream's
// default API prefix.
type leaderAPI struct{ p *Platform }

type apiResponse struct {
	Error   *jetstream.APIError `json:"error,omitempty"`
	Success bool                `json:"success,omitempty"`
	Message *storedMsg          `json:"message,omitempty"`
}

func (a leaderAPI) request(ctx context.Context, subj string, req any) (*apiResponse, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	m, err := a.p.nc.RequestWithContext(ctx, subj, b)
	if err != nil {
		return nil, err
	}
	var resp apiResponse
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return &resp, nil
}

func (a leaderAPI) deleteMsg(ctx context.Context, stream string, seq uint64) error {
	resp, err := a.request(ctx, "$JS.API.STREAM.MSG.DELETE."+stream, struct {
		Seq     uint64 `json:"seq"`
		NoErase bool   `json:"no_erase"`
	}{seq, true})
	if err == nil && !resp.Success {
		err = jetstream.ErrMsgDeleteUnsuccessful
	}
	return err
}

func (a leaderAPI) getMsg(ctx context.Context, stream string, req msgGetRequest) (*storedMsg, error) {
	resp, err := a.request(ctx, "$JS.API.STREAM.MSG.GET."+stream, req)
	if err != nil {
		return nil, err
	}
	if resp.Message == nil {
		return nil, jetstream.ErrInvalidJetStreamResponse
	}
	return resp.Message, nil
}
