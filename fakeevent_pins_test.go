package hostbridge

import (
	"errors"
	"io"
	"testing"
)

// TestFakeBodyPinsOneReader pins FakeBody's lock as a ReadableStream's:
// once a reader has it, a second Open — while the first is still reading,
// before its stream ended or was canceled — gets a reader whose every Read
// fails, and the first reader's data is not shared with it (读取入站有限正文字节
// status 3: "其他读取器已锁定正文流").
func TestFakeBodyPinsOneReader(t *testing.T) {
	fb := &FakeBody{Chunks: [][]byte{[]byte("ab"), []byte("cd")}}
	first := fb.Open()
	buf := make([]byte, 1)
	if n, err := first.Read(buf); n != 1 || err != nil || buf[0] != 'a' {
		t.Fatalf("first read (%d, %v) %q", n, err, buf[:n])
	}
	second := fb.Open()
	if n, err := second.Read(buf); n != 0 || !errors.Is(err, errFakeLocked) {
		t.Errorf("second reader: (%d, %v), want the locked error", n, err)
	}
	if err := second.Close(); err != nil || fb.Canceled {
		t.Errorf("closing the second reader: %v, canceled %v", err, fb.Canceled)
	}
	rest, err := io.ReadAll(first)
	if err != nil || string(rest) != "bcd" || fb.Pulls != 2 {
		t.Errorf("the first reader's rest %q, %v, pulls %d", rest, err, fb.Pulls)
	}
}
