module hostbridge

go 1.26
