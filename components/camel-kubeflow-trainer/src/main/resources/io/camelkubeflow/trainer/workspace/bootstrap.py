# camel-kubeflow-trainer workspace bootstrap: runs before the training code on every node (every rank under mpirun),
# with only Python's standard library. argv: ARCHIVE SHA256 ROOT USER_SITE [INDEX_URL...] -- PROGRAM [ARG...]
# ARCHIVE is a file (a mounted ConfigMap) or an http(s) URL that can only read it (an object store's presigned URL).
import fcntl, gzip, hashlib, io, os, shutil, subprocess, sys, tarfile, urllib.request
archive, digest, root, user_site = sys.argv[1:5]
split = sys.argv.index("--")
index_urls, program = sys.argv[5:split], sys.argv[split + 1:]
workspace = os.path.join(root, digest[:20])
os.makedirs(root, exist_ok=True)
with open(os.path.join(root, ".lock"), "w") as lock:
    # one unpack and one install per node, however many ranks start at once
    fcntl.flock(lock, fcntl.LOCK_EX)
    if not os.path.isdir(workspace):
        if archive.startswith(("http://", "https://")):
            with urllib.request.urlopen(archive, timeout=600) as staged:
                tar = gzip.decompress(staged.read())
        else:
            with open(archive, "rb") as staged:
                tar = gzip.decompress(staged.read())
        found = hashlib.sha256(tar).hexdigest()
        if found != digest:
            sys.exit("workspace: the staged archive has SHA-256 %s, not %s; not running it" % (found, digest))
        unpacking = workspace + ".unpacking"
        shutil.rmtree(unpacking, ignore_errors=True)
        with tarfile.open(fileobj=io.BytesIO(tar)) as entries:
            if hasattr(tarfile, "data_filter"):
                entries.extractall(unpacking, filter="data")
            else:
                entries.extractall(unpacking)
        requirements = os.path.join(unpacking, "requirements.txt")
        if os.path.isfile(requirements):
            pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-warn-script-location"]
            if user_site == "1":
                pip.append("--user")
            for i, url in enumerate(index_urls):
                pip += ["--index-url" if i == 0 else "--extra-index-url", url]
            env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
            subprocess.check_call(pip + ["-r", requirements], env=env)
        os.rename(unpacking, workspace)
    print("workspace: sha256 %s in %s" % (digest, workspace), flush=True)
os.chdir(workspace)
os.execvp(program[0], program)
