#!/bin/sh
# make demo: generate a story with stories260K on the virtual NPU (HTP0). The model is taken from models/
# or ../shared/models/, else downloaded from its upstream address (Hugging Face ggml-org/models).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
name=stories260K.gguf
url=https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf
sha256=270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d

model=
for dir in "$top/models" "$top/../shared/models"; do
    if [ -f "$dir/$name" ]; then
        model=$dir/$name
        break
    fi
done
if [ -z "$model" ]; then
    if ! command -v curl >/dev/null 2>&1; then
        echo "demo: $name is not in $top/models or $top/../shared/models, and downloading it needs curl:" \
            "apt-get install curl ca-certificates, or put it into $top/models/ ($url)" >&2
        exit 1
    fi
    mkdir -p "$top/models"
    echo "demo: downloading $name from $url" >&2
    if curl -fsL --retry 2 -o "$top/models/$name.part" "$url" 2>/dev/null &&
        echo "$sha256  $top/models/$name.part" | sha256sum -c --status; then
        mv "$top/models/$name.part" "$top/models/$name"
        model=$top/models/$name
    else
        rm -f "$top/models/$name.part"
        echo "demo: cannot get $name: download it from $url (sha256 $sha256) into $top/models/" >&2
        exit 1
    fi
fi

exec "$build/tools/vnpu-cli" -m "$model" --device HTP0 -p "Once upon a time" -n 200 --temp 0.8 --seed 42
