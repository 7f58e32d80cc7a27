// Where gi-docgen's links to other namespaces go: the GNOME references online, and the other
// Braggscope reference beside this one (both are installed, and built, side by side).
baseURLs = [
    [ 'GLib', 'https://docs.gtk.org/glib/' ],
    [ 'GObject', 'https://docs.gtk.org/gobject/' ],
    [ 'Gio', 'https://docs.gtk.org/gio/' ],
    [ 'Gdk', 'https://docs.gtk.org/gdk4/' ],
    [ 'Gsk', 'https://docs.gtk.org/gsk4/' ],
    [ 'Gtk', 'https://docs.gtk.org/gtk4/' ],
    [ 'Pango', 'https://docs.gtk.org/Pango/' ],
    [ 'Braggscope', '../braggscope-1/' ],
    [ 'BraggscopeGtk', '../braggscope-gtk-1/' ],
]
