# contrib/: files shipped in the tarball but not installed by `make install`.
# The AppArmor profile is installed by hand or by a distribution package
# (see contrib/apparmor/README.md).
EXTRA_DIST += contrib/apparmor/wicket contrib/apparmor/README.md \
	contrib/prompt/README.md contrib/prompt/starship.toml contrib/prompt/ps1.sh
