// The peer of benches/memory/peer.sh: reads one JSON object and decodes it with
// encoding/json into map[string]interface{}, the tree kube-apiserver holds for a custom
// resource (apimachinery's unstructured decoding; it keeps integers as int64, boxed in
// 8 bytes like the float64 here), and keeps the text and the tree alive to the end, as a
// server handling the request does. Nothing is validated: this is the floor of what the
// reference implementation needs for the object.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
)

func main() {
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var object map[string]interface{}
	if err := json.Unmarshal(text, &object); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	fmt.Printf("%d top-level fields, Go heap in use %d MB\n", len(object), stats.HeapInuse>>20)
	runtime.KeepAlive(text)
	runtime.KeepAlive(object)
}
