# contrib/: files shipped in the tarball but not installed by `make install`.
# The AppArmor profile is installed by hand or by a distribution package
# (see contrib/apparmor/README.md); contrib/debian/ is that package
# (contrib/debian/ci-build builds, checks and installs it).
EXTRA_DIST += contrib/apparmor/wicket contrib/apparmor/README.md \
	contrib/prompt/README.md contrib/prompt/starship.toml contrib/prompt/ps1.sh \
	contrib/harness/harness.py contrib/harness/README.md \
	contrib/debian/changelog contrib/debian/control contrib/debian/copyright \
	contrib/debian/rules contrib/debian/postinst contrib/debian/postrm \
	contrib/debian/wicket.docs contrib/debian/source/format contrib/debian/ci-build
