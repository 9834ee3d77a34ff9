# Sourced by .ci/run and .ci/test-apt-components: the one place that edits
# Debian's apt sources so the CUDA toolkit can be installed.
#
# nvidia-cuda-toolkit and libcuda1 live in non-free, and libcuda1 depends on
# nvidia-support, which lives in contrib; non-free-firmware comes along so a
# bookworm sources file reads the way Debian's installer writes it.
APT_CUDA_COMPONENTS="contrib non-free non-free-firmware"

# enable_apt_components FILE: add every component of APT_CUDA_COMPONENTS that
# is missing to each Debian source in FILE that already lists "main". FILE may
# be deb822 (a "Components:" line per stanza, as in debian.sources) or
# one-line ("deb [opts] URI suite main ..." as in sources.list); comments,
# other repositories and lines that already list a component are left alone,
# so running it twice changes nothing.
enable_apt_components() {
  local file=$1 tmp
  tmp=$(mktemp)
  awk -v want="$APT_CUDA_COMPONENTS" '
    function add_missing(line,    n, have, i, w, parts) {
      n = split(line, parts, /[ \t]+/)
      for (i = 1; i <= n; i++) have[parts[i]] = 1
      if (!("main" in have)) return line
      split(want, w, " ")
      for (i = 1; i in w; i++) if (!(w[i] in have)) line = line " " w[i]
      return line
    }
    /^Components:/            { sub(/[ \t]+$/, ""); print add_missing($0); next }
    /^deb(-src)?[ \t]/        { sub(/[ \t]+$/, ""); print add_missing($0); next }
                              { print }
  ' "$file" >"$tmp" && cat "$tmp" >"$file"
  local rc=$?
  rm -f "$tmp"
  return $rc
}

# component_of PACKAGE: the Debian component that ships a package the GPU
# build needs, for the error message when it cannot be installed.
component_of() {
  case $1 in
    nvidia-support) echo contrib ;;
    nvidia-cuda-toolkit | nvidia-cuda-dev | libcuda1 | libnvidia-*) echo non-free ;;
    *) echo main ;;
  esac
}
