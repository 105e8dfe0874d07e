within Workbench;
package Rover "Rover mobility models"
end Rover;
