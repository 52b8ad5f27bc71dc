module kcel.dev/benches/memory/go_decode

go 1.19
