package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// imageLayer is what an image would hold that this machine's filesystem lacks: the node agent runs every image's
// containers on the machine itself, so for the images the test cluster names it adds the image's environment
// (its ENV), its accounts (/etc/passwd, /etc/group) and its own files (a home directory, a daemon's config).
// The table is the test cluster's (testcluster/images.json), never the component's.
type imageLayer struct {
	// Images are path.Match patterns of the image names the layer stands for.
	Images []string `json:"images"`
	Why    string   `json:"why"`
	// Env is the image's ENV: it comes before the pod's env, which may override it.
	Env map[string]string `json:"env"`
	// Files are written into a copy per pod and mounted at their paths (an image's files are the pod's own).
	Files map[string]imageFile `json:"files"`
	// WorkingDir is the image's WORKDIR, where a container that names none runs.
	WorkingDir string `json:"workingDir"`
	// Dirs are directories of the image, made per pod with their owner (a user's home, which it writes to).
	Dirs map[string]imageDir `json:"dirs"`
}

type imageFile struct {
	// Source names a file up.sh made (in the agent's --image-files folder), mounted read-only as it is.
	Source  string `json:"source"`
	Content string `json:"content"`
	Mode    uint32 `json:"mode"`
	UID     int    `json:"uid"`
	GID     int    `json:"gid"`
}

type imageDir struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
}

type imageTable struct {
	layers []imageLayer
	// files is where the files that layers name by source are.
	files string
}

// checkTargets refuses a layer whose paths are not absolute and clean: a layer mounts at exactly the path it names.
func (t imageTable) checkTargets() error {
	for _, l := range t.layers {
		for _, target := range slices.Concat(slices.Collect(maps.Keys(l.Files)), slices.Collect(maps.Keys(l.Dirs))) {
			if !filepath.IsAbs(target) || filepath.Clean(target) != target {
				return fmt.Errorf("image layer %v: %q is not an absolute, clean path", l.Images, target)
			}
		}
	}
	return nil
}

func loadImageTable(file, files string) (imageTable, error) {
	table := imageTable{files: files}
	if file == "" {
		return table, nil
	}
	body, err := os.ReadFile(file)
	if err != nil {
		return table, err
	}
	if err := json.Unmarshal(body, &table.layers); err != nil {
		return table, fmt.Errorf("%s: %w", file, err)
	}
	return table, table.checkTargets()
}

// layer is the first layer whose pattern matches the image, or nil: the machine as it is.
func (t imageTable) layer(image string) *imageLayer {
	for i := range t.layers {
		for _, pattern := range t.layers[i].Images {
			if ok, _ := path.Match(pattern, image); ok {
				return &t.layers[i]
			}
		}
	}
	return nil
}

// materialize writes the layer's directories and files under dir (one copy per container run, as a container's
// writable layer) and says where to mount them: directories first, so files inside them land on top.
func (l *imageLayer) materialize(dir, sources string) ([]mount, error) {
	var mounts []mount
	for _, target := range slices.Sorted(maps.Keys(l.Dirs)) {
		d := l.Dirs[target]
		source := filepath.Join(dir, "image-dirs", filepath.Clean(target))
		if err := os.MkdirAll(source, 0o755); err != nil {
			return nil, err
		}
		if err := os.Chown(source, d.UID, d.GID); err != nil {
			return nil, err
		}
		mounts = append(mounts, mount{Source: source, Target: target})
	}
	for _, target := range slices.Sorted(maps.Keys(l.Files)) {
		f := l.Files[target]
		if f.Source != "" {
			mounts = append(mounts, mount{Source: filepath.Join(sources, filepath.Clean("/"+f.Source)),
				Target: target, ReadOnly: true})
			continue
		}
		contained := inDir(target, l.Dirs)
		source := filepath.Join(dir, "image-files", filepath.Clean(target))
		if contained {
			// the directory's copy holds it: a file mounted inside a mounted directory would hide the copy's
			source = filepath.Join(dir, "image-dirs", filepath.Clean(target))
		}
		if err := ensureDir(filepath.Dir(source)); err != nil {
			return nil, err
		}
		mode := os.FileMode(f.Mode)
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(source, []byte(f.Content), mode); err != nil {
			return nil, err
		}
		if err := os.Chmod(source, mode); err != nil {
			return nil, err
		}
		if err := os.Chown(source, f.UID, f.GID); err != nil {
			return nil, err
		}
		if !contained {
			mounts = append(mounts, mount{Source: source, Target: target})
		}
	}
	return mounts, nil
}
func inDir(target string, dirs map[string]imageDir) bool {
	for d := range dirs {
		if strings.HasPrefix(filepath.Clean(target), filepath.Clean(d)+"/") {
			return true
		}
	}
	return false
}
