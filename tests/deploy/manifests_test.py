#!/usr/bin/env python3
"""ctest: the deploy/ manifests agree with the binaries they start.

    manifests_test.py ATOLL_SERVER ATOLL_CLI [unittest arguments]

Parses deploy/docker-compose.yml, deploy/kubernetes/*.yaml,
deploy/agones/fleet.yaml and the Dockerfile, and checks them against the flag
lists the built binaries print (`atoll-server --helpfull`, `atoll batch run
--help`, `atoll health --help`): every flag exists; every port a listener
flag names is published (containerPort, Service targetPort, compose ports,
Agones ports, EXPOSE) and every published port or probe names a listener;
grace periods exceed --shutdown_grace; --data_dir is the mounted volume and
the image's VOLUME; the Indexed Job's shards match its completions. Each
check_* function returns the problems it found as messages naming the file,
the object and the field; the Mutated* tests feed them broken copies.

Without arguments the binaries are taken from $ATOLL_SERVER / $ATOLL_CLI or
build/release/bin.
"""

import copy
import json
import os
import re
import shlex
import subprocess
import sys
import unittest

try:
    import yaml
except ImportError:  # scripts/setup installs it
    print("manifests_test: needs PyYAML (Debian package python3-yaml; scripts/setup)",
          file=sys.stderr)
    sys.exit(1)

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER_BIN = os.environ.get("ATOLL_SERVER",
                            os.path.join(SOURCE_DIR, "build/release/bin/atoll-server"))
CLI_BIN = os.environ.get("ATOLL_CLI", os.path.join(SOURCE_DIR, "build/release/bin/atoll"))

COMPOSE = "deploy/docker-compose.yml"
KUBE_SERVER = "deploy/kubernetes/atoll-server.yaml"
KUBE_BATCH = "deploy/kubernetes/batch-job.yaml"
FLEET = "deploy/agones/fleet.yaml"
DOCKERFILE = "Dockerfile"

IMAGE_NAME = "atoll-server"  # the image every manifest runs
LOOPBACK = ("127.", "localhost", "[::1]", "::1")


# --- the binaries' flags -------------------------------------------------

class Flags:
    """A binary's flags: name -> default (as printed)."""

    def __init__(self, program, defaults):
        self.program = program
        self.defaults = defaults

    def is_bool(self, name):
        return self.defaults.get(name) in ("true", "false")


def _run_help(argv, ok_codes=(0,)):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if result.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(argv)} exited with {result.returncode}:\n"
                           f"{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def server_flags(server_bin):
    """Parses `atoll-server --helpfull` (Abseil: `--name (help); default: V;`,
    an entry continued on more deeply indented lines)."""
    # Abseil's --helpfull exits with status 1 after printing.
    text = _run_help([server_bin, "--helpfull"], ok_codes=(0, 1))
    entries, current = [], None
    for line in text.splitlines():
        match = re.match(r"^ {4}--(\w+) \(", line)
        if match:
            current = [line.strip()]
            entries.append(current)
        elif current is not None and line.startswith("      "):
            current.append(line.strip())
        else:
            current = None
    defaults = {}
    for entry in entries:
        joined = " ".join(entry)
        name = re.match(r"--(\w+)", joined).group(1)
        default = re.search(r"default: (.*?);$", joined)
        defaults[name] = default.group(1).strip('"') if default else None
    if "listen" not in defaults or "shutdown_grace" not in defaults:
        raise RuntimeError(f"cannot read the flags of {server_bin} --helpfull:\n{text}")
    return Flags("atoll-server", defaults)


def cli_flags(cli_bin, command):
    """Parses `atoll COMMAND --help` (`  --name=default  help`)."""
    text = _run_help([cli_bin] + command.split() + ["--help"])
    defaults = {m.group(1): m.group(2).strip('"')
                for m in re.finditer(r"^ {2}--(\w+)=(\S*)", text, re.M)}
    if not defaults:
        raise RuntimeError(f"no flags in `atoll {command} --help`:\n{text}")
    return Flags(f"atoll {command}", defaults)


# --- values ----------------------------------------------------------------

def parse_duration(text):
    """Seconds in an Abseil / compose duration ("5s", "1m30s", "500ms"), or
    None when it is not one."""
    text = str(text).strip()
    if text in ("0", "inf"):
        return 0.0 if text == "0" else float("inf")
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|us|ns|m|s)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
    return sum(float(n) * scale[u] for n, u in parts)


def parse_args(args, flags, where):
    """Returns ({flag: value}, positionals, problems) for `args` against
    `flags`: unknown flags, a value-less non-bool flag and a malformed bool
    are problems."""
    values, positionals, problems = {}, [], []
    for arg in args:
        arg = str(arg)
        if not arg.startswith("--"):
            positionals.append(arg)
            continue
        name, eq, value = arg[2:].partition("=")
        if name not in flags.defaults:
            if name.startswith("no") and flags.is_bool(name[2:]) and not eq:
                values[name[2:]] = "false"
                continue
            problems.append(f"{where}: unknown flag --{name} ({flags.program} has no such "
                            f"flag; it has {', '.join('--' + f for f in sorted(flags.defaults))})")
            continue
        if flags.is_bool(name):
            if eq and value not in ("true", "false", "1", "0"):
                problems.append(f"{where}: --{name} is a bool flag, not '{value}'")
            values[name] = "false" if value in ("false", "0") else "true"
        elif not eq:
            problems.append(f"{where}: --{name} needs a value (--{name}=...)")
        else:
            values[name] = value
    return values, positionals, problems


def effective(values, flags, name):
    return values.get(name, flags.defaults.get(name))


def listeners(values, where):
    """{flag: port} of every *listen flag set to HOST:PORT; problems for a
    malformed address, port 0 or a loopback host (unreachable from outside
    the container)."""
    ports, problems = {}, []
    for name, value in values.items():
        if not name.endswith("listen") or value == "":
            continue
        host, colon, port = value.rpartition(":")
        if not colon or not port.isdigit():
            problems.append(f"{where}: --{name}={value} is not HOST:PORT")
            continue
        if int(port) == 0:
            problems.append(f"{where}: --{name}={value} picks a random port; "
                            "a manifest must name it")
        if host.startswith(LOOPBACK):
            problems.append(f"{where}: --{name}={value} listens on loopback only; "
                            "nothing outside the container reaches it")
        ports[name] = int(port)
    return ports, problems


def listen_ports(values, flags, where):
    """listeners() with --listen at its default when the args do not set it."""
    merged = dict(values)
    merged.setdefault("listen", flags.defaults["listen"])
    return listeners(merged, where)


def image_repository(image):
    name = str(image).rsplit("/", 1)[-1]
    return name.split("@", 1)[0].split(":", 1)[0]


def require(doc, path, where, problems):
    """doc[path...] or None with a problem naming the field."""
    node = doc
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            problems.append(f"{where}: no {path}")
            return None
        node = node[key]
    return node


# --- the Dockerfile ----------------------------------------------------------

def parse_dockerfile(text):
    """[(INSTRUCTION, arguments)] of the last stage, continuations joined."""
    lines, pending = [], ""
    for raw in text.splitlines():
        if raw.lstrip().startswith("#"):  # comments, also inside continuations
            continue
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line = (pending + raw).strip()
        pending = ""
        if line:
            lines.append(line)
    instructions = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        if keyword.upper() == "FROM":
            instructions = []  # only the runtime stage is the image
        instructions.append((keyword.upper(), rest.strip()))
    return instructions


def exec_form(text):
    """["a", "b"] from a JSON-array instruction, else the shell words."""
    text = text.strip()
    if text.startswith("["):
        return json.loads(text)
    return shlex.split(text)


class Image:
    """What the runtime stage of the Dockerfile declares."""

    def __init__(self, text):
        self.instructions = parse_dockerfile(text)
        get = lambda k: [rest for key, rest in self.instructions if key == k]
        self.expose = {int(p.split("/")[0]) for e in get("EXPOSE") for p in e.split()}
        self.volumes = [v for e in get("VOLUME") for v in exec_form(e)]
        self.user = (get("USER") or [None])[-1]
        self.entrypoint = exec_form(get("ENTRYPOINT")[-1]) if get("ENTRYPOINT") else []
        self.cmd = exec_form(get("CMD")[-1]) if get("CMD") else []
        self.healthcheck = (get("HEALTHCHECK") or [""])[-1]
        self.uid = None
        for _, rest in self.instructions:
            match = re.search(r"useradd\b[^&;]*--uid (\d+)[^&;]*\s(\S+)\s*(?:&&|;|$)", rest)
            if match and match.group(2) == self.user:
                self.uid = int(match.group(1))


def check_dockerfile(image, server, health):
    where = DOCKERFILE
    problems = []
    if image.entrypoint != ["atoll-server"]:
        problems.append(f"{where}: ENTRYPOINT is {image.entrypoint}, not [\"atoll-server\"] "
                        "(the manifests pass server flags as args)")
    values, positionals, p = parse_args(image.cmd, server, f"{where}: CMD")
    problems += p
    if positionals:
        problems.append(f"{where}: CMD has arguments atoll-server does not take: {positionals}")
    ports, p = listen_ports(values, server, f"{where}: CMD")
    problems += p
    for flag, port in ports.items():
        if port not in image.expose:
            problems.append(f"{where}: EXPOSE {sorted(image.expose)} lacks port {port} of "
                            f"CMD --{flag}")
    if image.uid is None:
        problems.append(f"{where}: USER {image.user} is not made by a useradd --uid")
    # HEALTHCHECK [options] CMD ["atoll", "health", ...]
    options, _, command = image.healthcheck.partition(" CMD ")
    argv = exec_form(command) if command else []
    if argv[:2] != ["atoll", "health"]:
        problems.append(f"{where}: HEALTHCHECK CMD is {argv}, not atoll health")
    else:
        hvalues, _, p = parse_args(argv[2:], health, f"{where}: HEALTHCHECK")
        problems += p
        target = hvalues.get("server", "")
        port = target.rpartition(":")[2]
        if not port.isdigit() or int(port) != ports.get("listen"):
            problems.append(f"{where}: HEALTHCHECK --server={target} is not the port of CMD "
                            f"--listen ({ports.get('listen')})")
        timeout = re.search(r"--timeout=(\S+)", options)
        limit = parse_duration(timeout.group(1)) if timeout else 30.0
        asked = parse_duration(effective(hvalues, health, "timeout"))
        if asked is None or limit is None or asked >= limit:
            problems.append(f"{where}: HEALTHCHECK --timeout ({limit} s) must exceed atoll "
                            f"health --timeout ({asked} s)")
    return problems


# --- docker-compose.yml ----------------------------------------------------

def check_compose(doc, server, image):
    problems = []
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict) or "atoll-server" not in services:
        return [f"{COMPOSE}: no services.atoll-server"]
    svc = services["atoll-server"]
    where = f"{COMPOSE}: services.atoll-server"
    if image_repository(svc.get("image", "")) != IMAGE_NAME:
        problems.append(f"{where}.image {svc.get('image')} is not {IMAGE_NAME}")
    build = svc.get("build")
    context = build.get("context") if isinstance(build, dict) else build
    if context is not None and not os.path.isfile(
            os.path.join(SOURCE_DIR, "deploy", str(context), DOCKERFILE)):
        problems.append(f"{where}.build {context} holds no {DOCKERFILE}")
    if "entrypoint" in svc and svc["entrypoint"] not in (["atoll-server"], "atoll-server"):
        problems.append(f"{where}.entrypoint {svc['entrypoint']} is not atoll-server")
    command = svc.get("command", image.cmd)
    if isinstance(command, str):
        command = shlex.split(command)
    values, positionals, p = parse_args(command, server, f"{where}.command")
    problems += p
    if positionals:
        problems.append(f"{where}.command has arguments atoll-server does not take: {positionals}")
    ports, p = listen_ports(values, server, f"{where}.command")
    problems += p

    published = set()
    for entry in svc.get("ports", []):
        if isinstance(entry, dict):
            target = entry.get("target")
        elif isinstance(entry, str):
            target = entry.split("/")[0].rpartition(":")[2]
        else:
            # YAML 1.1 reads an unquoted 22:22 as a base-60 integer.
            problems.append(f"{where}.ports entry {entry!r} is not a string "
                            "(quote \"HOST:CONTAINER\")")
            continue
        if not str(target).isdigit():
            problems.append(f"{where}.ports entry {entry!r} names no container port")
            continue
        published.add(int(target))
        if int(target) not in ports.values():
            problems.append(f"{where}.ports: container port {target} is not a port the server "
                            f"listens on ({_describe(ports)})")
    for flag, port in ports.items():
        if port not in published:
            problems.append(f"{where}.ports: --{flag} port {port} is not published")

    problems += _check_data_dir(
        values, [str(v).split(":")[1] if ":" in str(v) else str(v)
                 for v in svc.get("volumes", [])
                 if not isinstance(v, dict)] +
        [v.get("target") for v in svc.get("volumes", []) if isinstance(v, dict)],
        image, f"{where}.volumes")
    for v in svc.get("volumes", []):
        source = v.get("source") if isinstance(v, dict) else str(v).split(":")[0]
        if source and not source.startswith(("/", ".", "~")) and \
                source not in (doc.get("volumes") or {}):
            problems.append(f"{COMPOSE}: volume {source} is not declared under volumes")

    grace = parse_duration(svc.get("stop_grace_period", "10s"))  # compose's default
    shutdown = parse_duration(effective(values, server, "shutdown_grace"))
    if grace is None or grace <= shutdown:
        problems.append(f"{where}.stop_grace_period {svc.get('stop_grace_period', '10s')} does "
                        f"not exceed --shutdown_grace ({shutdown:g} s)")
    if svc.get("stop_signal", "SIGTERM") not in ("SIGTERM", "TERM", 15):
        problems.append(f"{where}.stop_signal {svc['stop_signal']}: the server drains on SIGTERM")
    # The image's HEALTHCHECK probes the port of the image's CMD.
    health_port = re.search(r"--server=[^\"]*:(\d+)", image.healthcheck)
    if health_port and "listen" in ports and int(health_port.group(1)) != ports["listen"]:
        problems.append(f"{where}.command --listen port {ports['listen']} is not the port the "
                        f"image's HEALTHCHECK probes ({health_port.group(1)})")
    return problems


def _describe(ports):
    return ", ".join(f"--{f} {p}" for f, p in sorted(ports.items())) or "none"


def _check_data_dir(values, mount_paths, image, where):
    """--data_dir must be a mounted volume and the image's VOLUME."""
    data_dir = values.get("data_dir", "")
    if not data_dir:
        return []
    problems = []
    if data_dir.rstrip("/") not in [str(m).rstrip("/") for m in mount_paths]:
        problems.append(f"{where}: no mountPath/target at --data_dir={data_dir} "
                        f"(mounted: {mount_paths}); recordings would die with the container")
    if data_dir.rstrip("/") not in [v.rstrip("/") for v in image.volumes]:
        problems.append(f"{where}: --data_dir={data_dir} is not the image's VOLUME "
                        f"{image.volumes} (owned by the atoll user)")
    return problems


# --- Kubernetes and Agones -------------------------------------------------

def check_kinds(docs, path, expected):
    """Every document has apiVersion, kind, metadata.name; the kinds are
    exactly `expected` ({kind: apiVersion})."""
    problems, seen = [], []
    for i, doc in enumerate(docs):
        where = f"{path}: document {i + 1}"
        if not isinstance(doc, dict):
            problems.append(f"{where} is not a mapping")
            continue
        for field in ("apiVersion", "kind", "metadata.name"):
            require(doc, field, where, problems)
        kind = doc.get("kind")
        seen.append(kind)
        if kind in expected and doc.get("apiVersion") != expected[kind]:
            problems.append(f"{where}: {kind} apiVersion is {doc.get('apiVersion')}, "
                            f"not {expected[kind]}")
    if sorted(map(str, seen)) != sorted(expected):
        problems.append(f"{path}: kinds are {seen}, expected {sorted(expected)}")
    return problems


def by_kind(docs, kind):
    return [d for d in docs if isinstance(d, dict) and d.get("kind") == kind]


def check_server_pod(pod, server, image, where, ports_injected=False):
    """The atoll-server container of a pod spec: flags, ports, probes,
    grace period, data volume, user. With `ports_injected` (Agones adds the
    GameServer's ports to the container) a listener needs no containerPort
    here. Returns (problems, listen ports, container ports by name)."""
    problems = []
    containers = [c for c in pod.get("containers", []) if c.get("name") == "atoll-server"]
    if len(containers) != 1:
        return [f"{where}: no container named atoll-server"], {}, {}
    c = containers[0]
    cwhere = f"{where}: containers[atoll-server]"
    if image_repository(c.get("image", "")) != IMAGE_NAME:
        problems.append(f"{cwhere}.image {c.get('image')} is not {IMAGE_NAME}")
    if c.get("command") not in (None, ["atoll-server"]):
        problems.append(f"{cwhere}.command {c.get('command')} is not the image's atoll-server")
    args = c.get("args", image.cmd)
    values, positionals, p = parse_args(args, server, f"{cwhere}.args")
    problems += p
    if positionals:
        problems.append(f"{cwhere}.args has arguments atoll-server does not take: {positionals}")
    ports, p = listen_ports(values, server, f"{cwhere}.args")
    problems += p

    named = {}
    for port in c.get("ports", []):
        number = port.get("containerPort")
        if not isinstance(number, int):
            problems.append(f"{cwhere}.ports: containerPort {number!r} is not a number")
            continue
        if port.get("name"):
            named[port["name"]] = number
        if number not in ports.values():
            problems.append(f"{cwhere}.ports: containerPort {number} is not a port the server "
                            f"listens on ({_describe(ports)})")
    declared = {p.get("containerPort") for p in c.get("ports", [])}
    for flag, port in ports.items():
        if port not in declared and not ports_injected:
            problems.append(f"{cwhere}.ports: no containerPort for --{flag} port {port}")

    for probe_name in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = c.get(probe_name)
        if probe is None:
            if probe_name != "startupProbe":
                problems.append(f"{cwhere}: no {probe_name}")
            continue
        problems += _check_probe(probe, ports, named, f"{cwhere}.{probe_name}")

    grace = pod.get("terminationGracePeriodSeconds", 30)  # Kubernetes' default
    shutdown = parse_duration(effective(values, server, "shutdown_grace"))
    if not isinstance(grace, (int, float)) or grace <= shutdown:
        problems.append(f"{where}: terminationGracePeriodSeconds {grace} does not exceed "
                        f"--shutdown_grace ({shutdown:g} s)")

    mounts = [m.get("mountPath") for m in c.get("volumeMounts", [])]
    problems += _check_data_dir(values, mounts, image, f"{cwhere}.volumeMounts")
    volumes = {v.get("name") for v in pod.get("volumes", [])}
    for m in c.get("volumeMounts", []):
        if m.get("name") not in volumes:
            problems.append(f"{cwhere}.volumeMounts: volume {m.get('name')} is not in volumes")
    problems += _check_user(pod, c, image, where)
    return problems, ports, named


def _check_probe(probe, ports, named, where):
    def resolve(port):
        return named.get(port) if isinstance(port, str) else port
    if "grpc" in probe:
        port = probe["grpc"].get("port")
        if port != ports.get("listen"):
            return [f"{where}.grpc.port {port} is not the --listen port ({ports.get('listen')}): "
                    "the gRPC health service is served there"]
    elif "httpGet" in probe:
        port = resolve(probe["httpGet"].get("port"))
        if port != ports.get("metrics_listen") and port != ports.get("http_listen"):
            return [f"{where}.httpGet.port {probe['httpGet'].get('port')} is not the "
                    f"--metrics_listen or --http_listen port ({_describe(ports)})"]
    elif "tcpSocket" in probe:
        port = resolve(probe["tcpSocket"].get("port"))
        if port not in ports.values():
            return [f"{where}.tcpSocket.port {port} is not a port the server listens on"]
    elif "exec" not in probe:
        return [f"{where}: no grpc, httpGet, tcpSocket or exec"]
    return []


def _check_user(pod, container, image, where):
    problems = []
    for ctx_where, ctx in ((f"{where}.securityContext", pod.get("securityContext") or {}),
                           (f"{where}: containers[atoll-server].securityContext",
                            container.get("securityContext") or {})):
        for field in ("runAsUser", "fsGroup"):
            if field in ctx and ctx[field] != image.uid:
                problems.append(f"{ctx_where}.{field} {ctx[field]} is not the image's "
                                f"{image.user} uid {image.uid} (owner of its data VOLUME)")
    return problems


def check_kubernetes_server(docs, server, image):
    problems = check_kinds(docs, KUBE_SERVER, {"Deployment": "apps/v1", "Service": "v1"})
    deployments, services = by_kind(docs, "Deployment"), by_kind(docs, "Service")
    if len(deployments) != 1 or len(services) != 1:
        return problems
    dep, svc = deployments[0], services[0]
    where = f"{KUBE_SERVER}: Deployment {dep['metadata'].get('name')}"
    template = require(dep, "spec.template", where, problems) or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    selector = require(dep, "spec.selector.matchLabels", where, problems) or {}
    if not selector or any(labels.get(k) != v for k, v in selector.items()):
        problems.append(f"{where}: spec.selector.matchLabels {selector} does not match the "
                        f"template's labels {labels}")
    p, ports, named = check_server_pod(template.get("spec") or {}, server, image, where)
    problems += p
    annotations = (template.get("metadata") or {}).get("annotations") or {}
    if "prometheus.io/port" in annotations and \
            str(annotations["prometheus.io/port"]) != str(ports.get("metrics_listen")):
        problems.append(f"{where}: annotation prometheus.io/port "
                        f"{annotations['prometheus.io/port']} is not the --metrics_listen port "
                        f"({ports.get('metrics_listen')})")
    if dep["spec"].get("replicas", 1) != 1 or \
            (dep["spec"].get("strategy") or {}).get("type") != "Recreate":
        problems.append(f"{where}: spec.replicas must be 1 with strategy Recreate when --data_dir "
                        "is one writer's directory")

    swhere = f"{KUBE_SERVER}: Service {svc['metadata'].get('name')}"
    sel = (svc.get("spec") or {}).get("selector") or {}
    if not sel or any(labels.get(k) != v for k, v in sel.items()):
        problems.append(f"{swhere}: spec.selector {sel} does not select the Deployment's pods "
                        f"{labels}")
    for port in (svc.get("spec") or {}).get("ports", []):
        target = port.get("targetPort", port.get("port"))
        number = named.get(target) if isinstance(target, str) else target
        if number is None:
            problems.append(f"{swhere}: ports {port.get('name')} targetPort {target} names no "
                            "containerPort")
        elif number not in ports.values():
            problems.append(f"{swhere}: ports {port.get('name')} targetPort {target} ({number}) is "
                            f"not a port the server listens on ({_describe(ports)})")
        if number == ports.get("listen") and port.get("appProtocol") not in (None, "grpc"):
            problems.append(f"{swhere}: ports {port.get('name')} appProtocol "
                            f"{port.get('appProtocol')} on the gRPC port")
    targets = {named.get(p.get("targetPort"), p.get("targetPort"))
               for p in (svc.get("spec") or {}).get("ports", [])}
    if ports.get("listen") not in targets:
        problems.append(f"{swhere}: no port targets the --listen port {ports.get('listen')}")
    return problems


def check_batch_job(docs, batch, image):
    problems = check_kinds(docs, KUBE_BATCH, {"ConfigMap": "v1", "PersistentVolumeClaim": "v1",
                                              "Job": "batch/v1"})
    jobs = by_kind(docs, "Job")
    if len(jobs) != 1:
        return problems
    job = jobs[0]
    where = f"{KUBE_BATCH}: Job {job['metadata'].get('name')}"
    spec = job.get("spec") or {}
    if spec.get("completionMode") != "Indexed":
        problems.append(f"{where}: spec.completionMode is {spec.get('completionMode')}, not "
                        "Indexed (--shard comes from JOB_COMPLETION_INDEX)")
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    for field, value in (("completions", completions), ("parallelism", parallelism)):
        if not isinstance(value, int) or value < 1:
            problems.append(f"{where}: spec.{field} {value!r} is not a count >= 1")
    pod = require(job, "spec.template.spec", where, problems) or {}
    if pod.get("restartPolicy") not in ("OnFailure", "Never"):
        problems.append(f"{where}: spec.template.spec.restartPolicy {pod.get('restartPolicy')} "
                        "(a Job needs OnFailure or Never)")
    containers = pod.get("containers", [])
    if len(containers) != 1:
        return problems + [f"{where}: expected one container, found {len(containers)}"]
    c = containers[0]
    cwhere = f"{where}: containers[{c.get('name')}]"
    if image_repository(c.get("image", "")) != IMAGE_NAME:
        problems.append(f"{cwhere}.image {c.get('image')} is not {IMAGE_NAME}")
    if c.get("command") != ["atoll"]:
        problems.append(f"{cwhere}.command {c.get('command')} is not [atoll] (the image's "
                        "entrypoint is the server)")
    args = [str(a) for a in c.get("args", [])]
    if args[:2] != ["batch", "run"]:
        return problems + [f"{cwhere}.args {args} do not start with batch run"]
    values, positionals, p = parse_args(args[2:], batch, f"{cwhere}.args")
    problems += p
    if len(positionals) != 1:
        problems.append(f"{cwhere}.args: batch run takes one SPEC, got {positionals}")
    shards = values.get("shards")
    if not shards or not shards.isdigit() or int(shards) != completions:
        problems.append(f"{where}: --shards={shards} is not spec.completions ({completions}): "
                        "indexes 0..completions-1 must be the shards")
    if isinstance(parallelism, int) and isinstance(completions, int) and parallelism > completions:
        problems.append(f"{where}: spec.parallelism {parallelism} exceeds completions")
    if "shard" in values:
        problems.append(f"{cwhere}.args: --shard is set; every pod would run the same shard "
                        "instead of its JOB_COMPLETION_INDEX")

    volumes = {v.get("name"): v for v in pod.get("volumes", [])}
    mounts = {m.get("mountPath"): m.get("name") for m in c.get("volumeMounts", [])}

    def volume_under(path):
        for mount, name in mounts.items():
            if path == mount or path.startswith(mount.rstrip("/") + "/"):
                return mount, volumes.get(name)
        return None, None

    if positionals:
        mount, volume = volume_under(positionals[0])
        config_maps = {d["metadata"].get("name"): d for d in by_kind(docs, "ConfigMap")}
        if not volume or "configMap" not in volume:
            problems.append(f"{cwhere}.volumeMounts: SPEC {positionals[0]} is on no "
                            "ConfigMap volume")
        else:
            cm = config_maps.get(volume["configMap"].get("name"))
            key = os.path.relpath(positionals[0], mount)
            if cm is None or key not in (cm.get("data") or {}):
                problems.append(f"{where}: ConfigMap {volume['configMap'].get('name')} has no key "
                                f"{key} for SPEC {positionals[0]}")
            else:
                try:
                    json.loads(cm["data"][key])
                except ValueError as error:
                    problems.append(f"{KUBE_BATCH}: ConfigMap data {key} is not JSON: {error}")
    out = values.get("out", "")
    mount, volume = volume_under(out) if out else (None, None)
    claims = {d["metadata"].get("name") for d in by_kind(docs, "PersistentVolumeClaim")}
    if mount != out or not volume:
        problems.append(f"{cwhere}.volumeMounts: no mountPath at --out={out}")
    elif (volume.get("persistentVolumeClaim") or {}).get("claimName") not in claims:
        problems.append(f"{where}: --out volume {volume.get('name')} is not the "
                        f"PersistentVolumeClaim {sorted(claims)}")
    problems += _check_user(pod, c, image, where)
    return problems


def check_fleet(docs, server, image):
    problems = check_kinds(docs, FLEET, {"Fleet": "agones.dev/v1",
                                         "FleetAutoscaler": "autoscaling.agones.dev/v1"})
    fleets, scalers = by_kind(docs, "Fleet"), by_kind(docs, "FleetAutoscaler")
    if len(fleets) != 1 or len(scalers) != 1:
        return problems
    fleet = fleets[0]
    where = f"{FLEET}: Fleet {fleet['metadata'].get('name')}"
    gs = require(fleet, "spec.template.spec", where, problems) or {}
    pod = (gs.get("template") or {}).get("spec") or {}
    p, ports, _ = check_server_pod(pod, server, image, where, ports_injected=True)
    problems += p
    container = next((c for c in pod.get("containers", []) if c.get("name") == "atoll-server"),
                     {})
    values, _, _ = parse_args(container.get("args", []), server, where)
    if values.get("agones") != "true":
        problems.append(f"{where}: the atoll-server args lack --agones; the GameServer would "
                        "never be marked Ready")
    gs_ports = gs.get("ports") or []
    if not gs_ports:
        problems.append(f"{where}: spec.template.spec.ports is empty")
    for port in gs_ports:
        if port.get("container") not in (None, "atoll-server"):
            problems.append(f"{where}: ports {port.get('name')} container {port.get('container')}")
        number = port.get("containerPort")
        if number not in ports.values():
            problems.append(f"{where}: ports {port.get('name')} containerPort {number} is not a "
                            f"port the server listens on ({_describe(ports)})")
    if ports.get("listen") not in [p.get("containerPort") for p in gs_ports]:
        problems.append(f"{where}: no GameServer port for the --listen port {ports.get('listen')}")
    health = gs.get("health") or {}
    period = health.get("periodSeconds", 5)  # Agones' default
    pings = parse_duration(effective(values, server, "agones_health_period"))
    if health.get("disabled") is not True and (pings is None or pings >= period):
        problems.append(f"{where}: health.periodSeconds {period} is not above "
                        f"--agones_health_period ({pings} s): Agones would see missed pings")

    scaler = scalers[0]
    swhere = f"{FLEET}: FleetAutoscaler {scaler['metadata'].get('name')}"
    if (scaler.get("spec") or {}).get("fleetName") != fleet["metadata"].get("name"):
        problems.append(f"{swhere}: spec.fleetName {(scaler.get('spec') or {}).get('fleetName')} "
                        f"is not the Fleet {fleet['metadata'].get('name')}")
    policy = (scaler.get("spec") or {}).get("policy") or {}
    if policy.get("type") == "Buffer":
        buffer = policy.get("buffer") or {}
        size, low, high = (buffer.get("bufferSize"), buffer.get("minReplicas", 0),
                           buffer.get("maxReplicas"))
        if not isinstance(size, int) or not isinstance(high, int) or \
                not (size <= high and low <= high) or (low and low < size):
            problems.append(f"{swhere}: policy.buffer bufferSize {size}, minReplicas {low}, "
                            f"maxReplicas {high} are inconsistent")
    else:
        problems.append(f"{swhere}: policy.type {policy.get('type')}, expected Buffer")
    return problems


# --- the tests -------------------------------------------------------------

def read(path):
    with open(os.path.join(SOURCE_DIR, path), encoding="utf-8") as f:
        return f.read()


def load_all(path):
    return [d for d in yaml.safe_load_all(read(path)) if d is not None]


class Binaries:
    server = batch = health = None

    @classmethod
    def load(cls):
        if cls.server is None:
            cls.server = server_flags(SERVER_BIN)
            cls.batch = cli_flags(CLI_BIN, "batch run")
            cls.health = cli_flags(CLI_BIN, "health")


class ManifestsTest(unittest.TestCase):
    """The files as committed: no problem found."""

    @classmethod
    def setUpClass(cls):
        Binaries.load()
        cls.image = Image(read(DOCKERFILE))

    def assertNoProblems(self, problems):
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_server_help_lists_the_flags_the_checks_rely_on(self):
        for flag in ("listen", "metrics_listen", "data_dir", "shutdown_grace", "agones",
                     "agones_health_period"):
            self.assertIn(flag, Binaries.server.defaults)
        self.assertIsNotNone(parse_duration(Binaries.server.defaults["shutdown_grace"]))
        for flag in ("out", "shards", "threads"):
            self.assertIn(flag, Binaries.batch.defaults)

    def test_dockerfile_exposes_its_listen_port_and_checks_health_there(self):
        self.assertNoProblems(check_dockerfile(self.image, Binaries.server, Binaries.health))

    def test_compose_publishes_listen_port_and_mounts_data_dir(self):
        self.assertNoProblems(check_compose(load_all(COMPOSE)[0], Binaries.server, self.image))

    def test_kubernetes_deployment_and_service_agree_with_server_flags(self):
        self.assertNoProblems(check_kubernetes_server(load_all(KUBE_SERVER), Binaries.server,
                                                      self.image))

    def test_batch_job_is_indexed_with_one_shard_per_completion(self):
        self.assertNoProblems(check_batch_job(load_all(KUBE_BATCH), Binaries.batch, self.image))

    def test_agones_fleet_and_autoscaler_agree_with_server_flags(self):
        self.assertNoProblems(check_fleet(load_all(FLEET), Binaries.server, self.image))

    def test_every_manifest_serves_grpc_on_the_port_the_image_exposes(self):
        def grpc_port(args):
            values = parse_args(args, Binaries.server, "")[0]
            return listen_ports(values, Binaries.server, "")[0]["listen"]
        deployment = by_kind(load_all(KUBE_SERVER), "Deployment")[0]
        fleet = by_kind(load_all(FLEET), "Fleet")[0]
        used = {
            COMPOSE: grpc_port(load_all(COMPOSE)[0]["services"]["atoll-server"]["command"]),
            KUBE_SERVER: grpc_port(deployment["spec"]["template"]["spec"]["containers"][0]["args"]),
            FLEET: grpc_port(
                fleet["spec"]["template"]["spec"]["template"]["spec"]["containers"][0]["args"]),
            DOCKERFILE: grpc_port(self.image.cmd),
        }
        self.assertEqual(len(set(used.values())), 1, f"gRPC on several ports: {used}")
        self.assertTrue(set(used.values()) <= self.image.expose,
                        f"gRPC ports {used} are not EXPOSEd ({self.image.expose})")


class MutatedManifestsTest(unittest.TestCase):
    """Broken copies: the same checks name the field that is wrong."""

    @classmethod
    def setUpClass(cls):
        Binaries.load()
        cls.image = Image(read(DOCKERFILE))

    def assertProblem(self, problems, *needles):
        self.assertTrue(any(all(n in p for n in needles) for p in problems),
                        f"no problem mentions {needles}; got {problems}")

    def deployment(self, docs):
        return by_kind(docs, "Deployment")[0]["spec"]["template"]["spec"]

    def test_wrong_container_port_is_named(self):
        docs = load_all(KUBE_SERVER)
        self.deployment(docs)["containers"][0]["ports"][0]["containerPort"] = 50052
        problems = check_kubernetes_server(docs, Binaries.server, self.image)
        self.assertProblem(problems, "containerPort 50052", "not a port the server listens on")
        self.assertProblem(problems, "no containerPort for --listen port 50051")

    def test_unknown_server_flag_is_named(self):
        docs = load_all(KUBE_SERVER)
        self.deployment(docs)["containers"][0]["args"].append("--grace=30s")
        self.assertProblem(check_kubernetes_server(docs, Binaries.server, self.image),
                           "args: unknown flag --grace")

    def test_probe_on_another_port_is_named(self):
        docs = load_all(KUBE_SERVER)
        self.deployment(docs)["containers"][0]["livenessProbe"]["grpc"]["port"] = 9100
        self.assertProblem(check_kubernetes_server(docs, Binaries.server, self.image),
                           "livenessProbe.grpc.port 9100", "--listen port")

    def test_service_target_port_without_listener_is_named(self):
        docs = load_all(KUBE_SERVER)
        by_kind(docs, "Service")[0]["spec"]["ports"][1]["targetPort"] = 9200
        self.assertProblem(check_kubernetes_server(docs, Binaries.server, self.image),
                           "targetPort 9200")

    def test_short_termination_grace_is_named(self):
        docs = load_all(KUBE_SERVER)
        self.deployment(docs)["terminationGracePeriodSeconds"] = 5
        self.assertProblem(check_kubernetes_server(docs, Binaries.server, self.image),
                           "terminationGracePeriodSeconds 5", "--shutdown_grace")
        docs = load_all(KUBE_SERVER)
        self.deployment(docs)["containers"][0]["args"].append("--shutdown_grace=20s")
        self.assertProblem(check_kubernetes_server(docs, Binaries.server, self.image),
                           "terminationGracePeriodSeconds 15", "--shutdown_grace (20 s)")

    def test_data_dir_off_the_volume_is_named(self):
        docs = load_all(KUBE_SERVER)
        args = self.deployment(docs)["containers"][0]["args"]
        args[1] = "--data_dir=/data"
        problems = check_kubernetes_server(docs, Binaries.server, self.image)
        self.assertProblem(problems, "volumeMounts", "no mountPath/target at --data_dir=/data")
        self.assertProblem(problems, "is not the image's VOLUME")

    def test_loopback_listen_is_named(self):
        compose = load_all(COMPOSE)[0]
        compose["services"]["atoll-server"]["command"][0] = "--listen=127.0.0.1:50051"
        self.assertProblem(check_compose(compose, Binaries.server, self.image),
                           "command: --listen=127.0.0.1:50051 listens on loopback only")

    def test_compose_port_mapping_and_grace_are_named(self):
        compose = load_all(COMPOSE)[0]
        svc = compose["services"]["atoll-server"]
        svc["ports"] = ["50051:50052"]
        svc["stop_grace_period"] = "5s"
        problems = check_compose(compose, Binaries.server, self.image)
        self.assertProblem(problems, "ports: container port 50052")
        self.assertProblem(problems, "ports: --listen port 50051 is not published")
        self.assertProblem(problems, "stop_grace_period 5s", "--shutdown_grace (5 s)")
        # Unquoted 22:22 is the base-60 integer 1342 in YAML 1.1.
        unquoted = yaml.safe_load("services:\n  atoll-server:\n    ports:\n      - 22:22\n")
        svc["ports"] = unquoted["services"]["atoll-server"]["ports"]
        self.assertProblem(check_compose(compose, Binaries.server, self.image),
                           "ports entry", "is not a string")

    def test_compose_listen_port_other_than_the_healthcheck_is_named(self):
        compose = load_all(COMPOSE)[0]
        svc = compose["services"]["atoll-server"]
        svc["command"][0] = "--listen=0.0.0.0:6000"
        svc["ports"] = ["6000:6000"]
        self.assertProblem(check_compose(compose, Binaries.server, self.image),
                           "--listen port 6000", "HEALTHCHECK")

    def test_job_without_indexed_completion_is_named(self):
        docs = load_all(KUBE_BATCH)
        job = by_kind(docs, "Job")[0]
        del job["spec"]["completionMode"]
        job["spec"]["completions"] = 3
        problems = check_batch_job(docs, Binaries.batch, self.image)
        self.assertProblem(problems, "spec.completionMode is None, not Indexed")
        self.assertProblem(problems, "--shards=4 is not spec.completions (3)")
        self.assertProblem(problems, "parallelism 4 exceeds completions")

    def test_unknown_batch_flag_and_missing_kind_are_named(self):
        docs = load_all(KUBE_BATCH)
        container = by_kind(docs, "Job")[0]["spec"]["template"]["spec"]["containers"][0]
        container["args"].append("--shard_count=4")
        docs = [d for d in docs if d["kind"] != "PersistentVolumeClaim"]
        problems = check_batch_job(docs, Binaries.batch, self.image)
        self.assertProblem(problems, "args: unknown flag --shard_count", "atoll batch run")
        self.assertProblem(problems, "kinds are", "PersistentVolumeClaim")
        self.assertProblem(problems, "--out volume results is not the PersistentVolumeClaim")

    def test_document_without_name_is_named(self):
        docs = load_all(FLEET)
        del by_kind(docs, "FleetAutoscaler")[0]["metadata"]["name"]
        self.assertProblem(check_fleet(docs, Binaries.server, self.image),
                           "document 2: no metadata.name")

    def test_fleet_port_flag_and_health_period_are_named(self):
        docs = load_all(FLEET)
        gs = by_kind(docs, "Fleet")[0]["spec"]["template"]["spec"]
        gs["ports"][0]["containerPort"] = 7777
        gs["health"]["periodSeconds"] = 2
        gs["template"]["spec"]["containers"][0]["args"].remove("--agones")
        by_kind(docs, "FleetAutoscaler")[0]["spec"]["fleetName"] = "other"
        problems = check_fleet(docs, Binaries.server, self.image)
        self.assertProblem(problems, "ports grpc containerPort 7777")
        self.assertProblem(problems, "no GameServer port for the --listen port 50051")
        self.assertProblem(problems, "health.periodSeconds 2", "--agones_health_period")
        self.assertProblem(problems, "lack --agones")
        self.assertProblem(problems, "spec.fleetName other")

    def test_dockerfile_without_expose_and_with_unknown_flag_is_named(self):
        text = read(DOCKERFILE).replace("EXPOSE 50051", "EXPOSE 8080").replace(
            'CMD ["--listen=0.0.0.0:50051"]', 'CMD ["--listen=0.0.0.0:50051", "--port=1"]')
        problems = check_dockerfile(Image(text), Binaries.server, Binaries.health)
        self.assertProblem(problems, "EXPOSE [8080] lacks port 50051")
        self.assertProblem(problems, "CMD: unknown flag --port")

    def test_user_other_than_the_image_uid_is_named(self):
        docs = load_all(KUBE_SERVER)
        self.deployment(docs)["securityContext"]["runAsUser"] = 1000
        self.assertProblem(check_kubernetes_server(docs, Binaries.server, self.image),
                           "securityContext.runAsUser 1000", "uid 10001")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and not sys.argv[1].startswith("-"):
        SERVER_BIN, CLI_BIN = sys.argv[1], sys.argv[2]
        del sys.argv[1:3]
    unittest.main(verbosity=2)
