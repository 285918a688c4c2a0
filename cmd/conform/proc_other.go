//go:build !unix

package main

import "os/exec"

func ownGroup(*exec.Cmd) {}

// killGroup kills the command (its children may outlive it here).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
