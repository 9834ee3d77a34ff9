package all

import _ "arew/tasks/pe"
